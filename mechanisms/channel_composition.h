#pragma once
// The joint promise of the two channels of the vMF paper, sec. 6 (Def. 6.1: eps_vis = eps_sys,
// eps_txt = alpha eps_sys), each channel perturbed independently by the same mechanism.
//
// Thm 6.1 states max(eps_vis, eps_txt); its own proof ends with exp(eps_vis d_vis + eps_txt d_txt)
// for inputs that differ in both channels: basic composition, the SUM. The max holds only when one
// channel alone changes. embpriv composes the sum (docs/errata.md, "Theorem 6.1 composes the two
// channels by their sum"; docs/reproduction.md, vmf-thm61-composition).
#include "mechanisms/mechanism.h"

namespace embpriv {

// The privacy loss bound (nats) of the pair (visual row, text row) for inputs whose directions move
// d_visual and d_text radians: eps_vis d_visual + eps_txt d_text (the proof of Thm 6.1). The
// mechanism's claim must be metric DP (vmf; vmf_tangent promises nothing: docs/errata.md), and the
// distances in [0, pi]; otherwise an embpriv::Error names the problem.
double composed_channel_loss(const Mechanism& mechanism, double d_visual, double d_text);

// Per radian moved in each channel: eps_vis + eps_txt = (1 + alpha) eps_sys, not max(eps_vis, eps_txt).
double composed_channel_epsilon(const Mechanism& mechanism);

}  // namespace embpriv
