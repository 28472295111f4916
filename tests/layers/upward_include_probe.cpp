// A file that includes a header of attacks/, a layer above mechanisms/ (GUIDE.md sec. 2).
// tests/layers/layers.cmake compiles it twice: as part of a target that links only
// embpriv_mechanisms, where the include must fail to compile (mechanisms sees core/ and itself),
// and as part of one that links embpriv_attacks, where it must compile (the control: the failure
// comes from the layer's include path, not from this file).
#include "attacks/nearest_rows.h"

int embpriv_upward_include_probe() { return 0; }
