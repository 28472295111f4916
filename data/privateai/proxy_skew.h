#pragma once
// Transfer heterogeneity (PrivateAI paper, sec. 5.3, Fig. 5: beta): how far the server's proxy
// units are from the clients' labelled units. The paper names beta in {0.1, 1, 10} without
// saying how it is drawn; embpriv draws it as Hsu et al. (2019) draw label skew, over the units'
// categories (not private, or the first private kind: e-mail address, phone number, IP address,
// user URL, header name): the proxy's category shares are q ~ Dirichlet(beta p), with p the
// clients' shares, then each proxy unit is a category drawn from q and a unit of that category
// drawn uniformly from the proxy e-mails (with replacement: q may ask for more units of a rare
// kind than the proxy e-mails hold). Small beta: the proxy holds mostly one category; large
// beta: the clients' mix. docs/privateai.md.
#include <cstdint>
#include <vector>

#include "data/privateai/private_units.h"

namespace embpriv {

constexpr int kUnitCategories = 6;
int unit_category(unsigned kinds);                                       // 0: not private
std::vector<double> category_shares(const std::vector<const TextUnit*>& units);  // sums to 1
double total_variation(const std::vector<double>& p, const std::vector<double>& q);

struct SkewedDraw {
  std::vector<const TextUnit*> units;
  std::vector<double> target;  // q, over the categories the pool holds
  double distance = 0;         // total variation between the drawn units' shares and p
};

// n units of `pool` whose category shares follow q ~ Dirichlet(beta p); deterministic for a seed.
SkewedDraw draw_skewed(const std::vector<const TextUnit*>& pool, const std::vector<double>& p, std::int64_t n,
                       double beta, std::uint64_t seed);

}  // namespace embpriv
