#include "federated/federated_training.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"
#include "core/progress.h"
#include "core/rng.h"
#include "federated/knowledge_alignment.h"
#include "federated/protocol.h"

namespace embpriv {
namespace {

// The clients of round n: a uniform sample of round(fraction K) of them (at least one), sorted.
std::vector<std::int64_t> sample_clients(std::int64_t K, double fraction, std::uint64_t seed) {
  std::vector<std::int64_t> all(static_cast<std::size_t>(K));
  std::iota(all.begin(), all.end(), 0);
  Rng rng(seed, 0);
  shuffle(all, rng);
  const auto m = std::clamp<std::int64_t>(std::llround(fraction * static_cast<double>(K)), 1, K);
  all.resize(static_cast<std::size_t>(m));
  std::sort(all.begin(), all.end());
  return all;
}

void check_options(const std::vector<LabelledUnits>& clients, const ProxyKnowledge* proxy, const FederatedOptions& o) {
  EMBPRIV_CHECK(!clients.empty(), "federated training: no clients");
  EMBPRIV_CHECK(o.rounds >= 1, "federated training: rounds must be >= 1, got " << o.rounds);
  EMBPRIV_CHECK(o.client_fraction > 0 && o.client_fraction <= 1,
                "federated training: the client fraction must be in (0, 1], got " << o.client_fraction);
  EMBPRIV_CHECK(o.distill.every >= 0, "federated training: distill.every (I_kd) must be >= 0");
  EMBPRIV_CHECK(o.distill.every == 0 || (proxy && proxy->ids.defined() && proxy->ids.size(0) > 0 &&
                                          (!o.distill.use_teachers || proxy->teacher_mean.defined())),
                "federated training: distillation needs a proxy set with teachers' answers");
  if (o.dp.enabled) {
    EMBPRIV_CHECK(o.dp.epsilon > 0 && std::isfinite(o.dp.epsilon), "local DP: eps must be > 0, got " << o.dp.epsilon);
    EMBPRIV_CHECK(o.dp.delta > 0 && o.dp.delta < 1, "local DP: delta must be in (0, 1), got " << o.dp.delta);
  }
  for (std::size_t u = 0; u < clients.size(); ++u) {
    EMBPRIV_CHECK(clients[u].ids.defined() && clients[u].labels.defined() &&
                      clients[u].ids.size(0) == clients[u].labels.size(0),
                  "federated training: client " << u << " has ids and labels of different lengths");
  }
}

}  // namespace

ParticipationSchedule participation_schedule(std::int64_t clients, const FederatedOptions& o) {
  EMBPRIV_CHECK(clients >= 1 && o.rounds >= 1, "federated training: no clients or no rounds");
  std::vector<std::vector<std::int64_t>> schedule;
  for (std::int64_t n = 0; n < o.rounds; ++n) {
    schedule.push_back(
        sample_clients(clients, o.client_fraction, derive_seed(o.seed, static_cast<std::uint64_t>(n), "federated.clients")));
  }
  return schedule;
}

FederatedNoise federated_noise(const FederatedOptions& o, std::int64_t clients) {
  // The protocol's noise does not depend on the model: a one-parameter stand-in builds it.
  return make_protocol(o, participation_schedule(clients, o), clients, at::zeros({1}))->noise();
}

std::vector<RoundRecord> train_federated(TextClassifier& model, const std::vector<LabelledUnits>& clients,
                                         const ProxyKnowledge* proxy, const FederatedOptions& o,
                                         const std::function<double(const TextClassifier&)>& evaluate) {
  check_options(clients, proxy, o);
  const auto K = static_cast<std::int64_t>(clients.size());
  const ParticipationSchedule schedule = participation_schedule(K, o);
  const std::unique_ptr<Protocol> protocol = make_protocol(o, schedule, K, model.shared_parameters());
  std::vector<RoundRecord> records;
  ProgressBar progress(o.rounds, "rounds");
  for (std::int64_t n = 0; n < o.rounds; ++n) {
    const auto round = static_cast<std::uint64_t>(n);
    RoundRecord record;
    record.round = n + 1;
    const at::Tensor global = model.shared_parameters();
    std::vector<at::Tensor> released;
    for (const std::int64_t u : schedule[static_cast<std::size_t>(n)]) {
      const auto client_round = round * static_cast<std::uint64_t>(K) + static_cast<std::uint64_t>(u);
      TextClassifier local = model.clone();
      record.local_loss += protocol->train_locally(local, clients[static_cast<std::size_t>(u)],
                                                derive_seed(o.seed, client_round, "federated.local"));
      released.push_back(protocol->release(local.shared_parameters(), global,
                                        derive_seed(o.seed, client_round, "federated.noise")));
    }
    record.clients = static_cast<std::int64_t>(released.size());
    record.local_loss /= static_cast<double>(released.size());
    model.set_shared_parameters(protocol->aggregate(global, released, record));
    if (o.distill.every > 0 && (n + 1) % o.distill.every == 0) {
      const at::Tensor server_answers = model.probabilities(proxy->ids);
      const at::Tensor& teachers = o.distill.use_teachers ? proxy->teacher_mean : server_answers;
      const DistillationTargets kept = o.distill.align ? aligned_knowledge(teachers, server_answers, o.distill.mu)
                                                       : unaligned_knowledge(teachers);
      record.distilled_units = kept.units.size(0);
      if (record.distilled_units > 0) {
        model.train(proxy->ids.index_select(0, kept.units), kept.targets, o.distill.train,
                    derive_seed(o.seed, round, "federated.distill"));
      }
    }
    record.evaluation = evaluate ? evaluate(model) : 0.0;
    records.push_back(record);
    progress.advance();
  }
  return records;
}

}  // namespace embpriv
