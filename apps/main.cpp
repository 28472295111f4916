// The `embpriv` command line: parse, dispatch, report (apps/cli.h).
#include "apps/cli.h"

int main(int argc, char** argv) { return embpriv::run_cli(argc, argv); }
