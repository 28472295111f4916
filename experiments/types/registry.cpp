#include "experiments/types/registry.h"

#include "experiments/types/accountant/accountant_experiment.h"
#include "experiments/types/audit/audit_experiment.h"
#include "experiments/types/bounds/bounds_experiment.h"
#include "experiments/types/federated/federated_experiment.h"
#include "experiments/types/inversion/inversion_experiment.h"
#include "experiments/types/mia/mia_experiment.h"
#include "experiments/types/obfuslm/obfuslm_experiment.h"
#include "experiments/types/perturbation/perturbation_experiment.h"

namespace embpriv {

const ExperimentRegistry& default_experiment_registry() {
  static const ExperimentRegistry registry = [] {
    ExperimentRegistry r;
    r.add(make_perturbation_experiment());
    r.add(make_inversion_experiment());
    r.add(make_obfuslm_experiment());
    r.add(make_audit_experiment());
    r.add(make_mia_experiment());
    r.add(make_federated_experiment());
    r.add(make_bounds_experiment());
    r.add(make_accountant_experiment());
    return r;
  }();
  return registry;
}

}  // namespace embpriv
