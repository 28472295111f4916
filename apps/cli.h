#pragma once
// The `embpriv` command line: parses arguments, dispatches to experiments/, and turns errors
// into one line on stderr with exit code 2 (bad input) or 1 (internal fault).
#include "mechanisms/registry.h"

namespace embpriv {

// Runs the command line with the given mechanisms (tests pass a registry with a deliberately
// broken mechanism to show that `embpriv bounds` then exits 1).
int run_cli(int argc, char** argv, const MechanismRegistry& registry);
int run_cli(int argc, char** argv);

}  // namespace embpriv
