#pragma once
// The keys types federated (experiments/types/federated/federated_settings.cpp) and accountant
// (experiments/types/accountant/accountant_experiment.cpp) share: the federation and the
// clients' local DP budget, declared once, their defaults taken from the library's structs
// (federated/federated_options.h, federated/local_dp.h). dp.delta is not among them: its default
// differs on purpose (tests/experiments/engine/key_declarations_test.cpp says why).
#include <cstdint>

#include "experiments/engine/typed_key.h"
#include "federated/federated_options.h"

namespace embpriv::federation_key {

inline const Key<std::int64_t> kClients =
    integer_key("clients", 10, "K clients (at most the members, half the candidates)").at_least(1);
inline const Key<std::int64_t> kRounds = integer_key("rounds", FederatedOptions{}.rounds, "federated rounds").at_least(1);
inline const Key<double> kClientFraction =
    number_key("client_fraction", FederatedOptions{}.client_fraction, "0.8", "clients sampled each round")
        .above(0)
        .at_most(1);
inline const Key<double> kDpEpsilon =
    number_key("dp.epsilon", LocalDpOptions{}.epsilon, "1", "the clients' local DP budget (each round's release, "
                                                           "unless dp.budget says otherwise)")
        .above(0);

}  // namespace embpriv::federation_key
