// Eq. (6) and the alignment filter of PrivateAI, worked by hand.
#include "tests/catch.h"

#include <ATen/ATen.h>

#include "core/error.h"
#include "federated/knowledge_alignment.h"

using namespace embpriv;

TEST_CASE("teachers are averaged (eq. 6), fused with the server and filtered by mu", "[federated]") {
  const at::Tensor scores = at::tensor({1.0, 0.0, 1.0, 0.0, 0.5, 0.8, 0.0, 0.0, 0.0, 0.6}, at::kDouble).view({2, 5});
  const at::Tensor mean = average_teacher_answers(scores);
  CHECK(mean[0].item<double>() == Approx(0.9));
  CHECK(mean[2].item<double>() == Approx(0.5));
  // Server: confident on units 0 (private) and 1 (not), unsure on 2, wrong on 3, agreeing on 4.
  const at::Tensor server = at::tensor({0.98, 0.04, 0.5, 0.9, 0.6}, at::kDouble);
  const DistillationTargets kept = aligned_knowledge(mean, server, 0.8);
  // fused = (0.94, 0.02, 0.5, 0.45, 0.575): only units 0 and 1 pass max(f, 1 - f) > 0.8.
  REQUIRE(kept.units.size(0) == 2);
  CHECK(kept.units[0].item<std::int64_t>() == 0);
  CHECK(kept.units[1].item<std::int64_t>() == 1);
  CHECK(kept.targets[0].item<double>() == Approx(0.94));
  CHECK(kept.targets[1].item<double>() == Approx(0.02));
  CHECK(aligned_knowledge(mean, server, 0.5).units.size(0) == 4);  // all but the tie at 0.5
  const DistillationTargets all = unaligned_knowledge(mean);
  CHECK(all.units.size(0) == 5);
  CHECK(at::allclose(all.targets, mean));
  CHECK_THROWS_AS(aligned_knowledge(mean, server, 1.0), Error);
  CHECK_THROWS_AS(aligned_knowledge(mean, server.narrow(0, 0, 3), 0.9), Error);
  CHECK_THROWS_AS(average_teacher_answers(at::full({1, 3}, 1.5, at::kDouble)), Error);
}
