#pragma once
// Person names as the PrivateAI labeller reads them (data/privateai/private_units.h): a name is a pair of
// consecutive words written like names (one capital, then 2+ lower-case letters), "Given
// Family"; a one-letter initial between them is skipped ("Jane Q. Doe" -> "Jane Doe") and role
// words ("Support", "List", "Team", ...) are not names. A single word ("Jane", "Linux",
// "Lockergnome") is not a name: on its own it matches too many words that are not people.
#include <string>
#include <vector>

namespace embpriv {

// Each "Given Family" pair of `text`, in order, outside <...> (HTML tags, bracketed addresses),
// URLs (from "://" or "www." to the next space) and e-mail addresses; punctuation other than an
// initial's dot ends a run of names ("Doe, Jane" holds no pair).
std::vector<std::string> name_pairs(const std::string& text);

}  // namespace embpriv
