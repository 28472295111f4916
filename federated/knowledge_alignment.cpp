#include "federated/knowledge_alignment.h"

#include <ATen/ATen.h>

#include "core/error.h"

namespace embpriv {
namespace {

void check_scores(const at::Tensor& s, const char* what) {
  EMBPRIV_CHECK(s.defined() && s.dim() == 1, "knowledge alignment: " << what << " must be a vector [E]");
  EMBPRIV_CHECK(s.isfinite().all().item<bool>() && s.ge(0).all().item<bool>() && s.le(1).all().item<bool>(),
                "knowledge alignment: " << what << " must lie in [0, 1]");
}

}  // namespace

at::Tensor average_teacher_answers(const at::Tensor& scores) {
  EMBPRIV_CHECK(scores.defined() && scores.dim() == 2 && scores.size(0) >= 1,
                "knowledge alignment: teacher scores must be [H >= 1, E]");
  const at::Tensor mean = scores.to(at::kDouble).mean(0);
  check_scores(mean, "the teachers' answers");
  return mean;
}

DistillationTargets aligned_knowledge(const at::Tensor& teacher_mean, const at::Tensor& server_answers, double mu) {
  check_scores(teacher_mean, "the teachers' mean answer");
  check_scores(server_answers, "the server model's answers");
  EMBPRIV_CHECK(teacher_mean.size(0) == server_answers.size(0),
                "knowledge alignment: " << teacher_mean.size(0) << " teacher answers but " << server_answers.size(0)
                                        << " server answers");
  EMBPRIV_CHECK(mu >= 0.5 && mu < 1, "knowledge alignment: mu must be in [0.5, 1), got " << mu);
  const at::Tensor fused = 0.5 * teacher_mean.to(at::kDouble) + 0.5 * server_answers.to(at::kDouble);
  const at::Tensor units = at::maximum(fused, 1 - fused).gt(mu).nonzero().squeeze(1);
  return {units, fused.index_select(0, units)};
}

DistillationTargets unaligned_knowledge(const at::Tensor& teacher_mean) {
  check_scores(teacher_mean, "the teachers' mean answer");
  return {at::arange(teacher_mean.size(0), at::kLong), teacher_mean.to(at::kDouble)};
}

}  // namespace embpriv
