#include "core/source_dir.h"

namespace embpriv {

const char* source_dir() { return EMBPRIV_SOURCE_DIR; }

}  // namespace embpriv
