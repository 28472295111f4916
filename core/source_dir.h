// Where embpriv's sources were when it was built: configs, docs and scripts are found from here.
// The path is compiled into core/source_dir.cpp alone, so that every other object file is the
// same wherever the checkout lives (ccache then shares them between checkouts).
#pragma once

namespace embpriv {

const char* source_dir();

}  // namespace embpriv
