# The build enforces the layers (cmake/folder_targets.cmake): a folder sees only the headers of
# the folders it links. Two targets outside `all` compile tests/layers/upward_include_probe.cpp,
# which includes attacks/: one links mechanisms only (must fail: an arrow pointing up), one links
# attacks (must compile). The ctest layers_upward_include_fails_to_compile
# builds both and checks the first fails on that include.
add_library(embpriv_probe_upward_include OBJECT EXCLUDE_FROM_ALL tests/layers/upward_include_probe.cpp)
target_link_libraries(embpriv_probe_upward_include PRIVATE embpriv_mechanisms)
add_library(embpriv_probe_downward_include OBJECT EXCLUDE_FROM_ALL tests/layers/upward_include_probe.cpp)
target_link_libraries(embpriv_probe_downward_include PRIVATE embpriv_attacks)
add_test(NAME layers_upward_include_fails_to_compile
         COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${CMAKE_BINARY_DIR}
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/tests/layers/check_probes.cmake)
