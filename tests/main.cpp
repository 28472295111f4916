// The Catch2 main of embpriv's tests. Tests live beside the module they test, under tests/.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
