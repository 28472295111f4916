# One CMake target per folder of GUIDE.md, sec. 2, and the build's check that arrows only point down.
#
#   embpriv_folder(data/tokenizers LINKS core data/tables LIBRARIES nlohmann_json::nlohmann_json)
#
# makes the static library embpriv_data_tokenizers from data/tokenizers/*.cpp (RECURSE: and its
# subfolders), linked to the folders named in LINKS and to the other LIBRARIES.
#
# A folder sees the headers of the folders it links, and no others: its include path is not the
# repository root but build/folder_include/<target>/, which holds one symbolic link,
# data/tokenizers -> the source folder. So `#include "attacks/audit.h"` in mechanisms/ fails to
# compile ("No such file or directory"): tests/layers/ builds such a file on purpose.
#
# embpriv_check_folder_links(), called once every folder is declared, reads the #include lines of
# each folder and stops the configure step where LINKS and the includes differ: a folder that
# includes another it does not link directly (a transitive link would let it compile), or one
# that links a folder it never includes. So the LINKS lists are exactly the arrows of the code.

set(EMBPRIV_FOLDER_INCLUDE_ROOT ${CMAKE_BINARY_DIR}/folder_include)

function(embpriv_folder_target_name folder out)
  string(REPLACE "/" "_" name "embpriv_${folder}")
  set(${out} ${name} PARENT_SCOPE)
endfunction()

function(embpriv_folder folder)
  cmake_parse_arguments(arg "RECURSE" "" "LINKS;LIBRARIES" ${ARGN})
  embpriv_folder_target_name(${folder} target)
  if(arg_RECURSE)
    file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${folder}/*.cpp)
  else()
    file(GLOB sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${folder}/*.cpp)
  endif()
  list(FILTER sources EXCLUDE REGEX "/main\\.cpp$")  # apps/main.cpp is the executable's
  add_library(${target} STATIC ${sources})
  set(include_dir ${EMBPRIV_FOLDER_INCLUDE_ROOT}/${target})
  get_filename_component(link_parent ${include_dir}/${folder} DIRECTORY)
  file(MAKE_DIRECTORY ${link_parent})
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${folder} ${include_dir}/${folder} SYMBOLIC)
  target_include_directories(${target} PUBLIC ${include_dir})
  target_compile_options(${target} PRIVATE ${EMBPRIV_WARNINGS})
  foreach(linked ${arg_LINKS})
    embpriv_folder_target_name(${linked} linked_target)
    if(NOT TARGET ${linked_target})
      message(FATAL_ERROR "${folder} links ${linked}, which is not declared before it (arrows point down)")
    endif()
    target_link_libraries(${target} PUBLIC ${linked_target})
  endforeach()
  if(arg_LIBRARIES)
    target_link_libraries(${target} PUBLIC ${arg_LIBRARIES})
  endif()
  set_property(GLOBAL APPEND PROPERTY EMBPRIV_FOLDERS ${folder})
  set_property(GLOBAL PROPERTY EMBPRIV_FOLDER_LINKS_${target} "${arg_LINKS}")
  set_property(GLOBAL PROPERTY EMBPRIV_FOLDER_RECURSE_${target} ${arg_RECURSE})
endfunction()

# The folder of ours that an include path names ("data/tables/x.h" -> data/tables), or "".
function(embpriv_folder_of_include path folders out)
  set(found "")
  foreach(folder ${folders})
    string(LENGTH "${folder}/" prefix_length)
    string(SUBSTRING "${path}" 0 ${prefix_length} prefix)
    string(LENGTH "${found}" found_length)
    if(prefix STREQUAL "${folder}/" AND prefix_length GREATER found_length)
      set(found ${folder})  # the longest: mechanisms/obfuslm/x.h is in mechanisms/obfuslm
    endif()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

function(embpriv_check_folder_links)
  get_property(folders GLOBAL PROPERTY EMBPRIV_FOLDERS)
  set(problems "")
  foreach(folder ${folders})
    embpriv_folder_target_name(${folder} target)
    get_property(links GLOBAL PROPERTY EMBPRIV_FOLDER_LINKS_${target})
    get_property(recurse GLOBAL PROPERTY EMBPRIV_FOLDER_RECURSE_${target})
    if(recurse)
      file(GLOB_RECURSE files CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${folder}/*.h ${PROJECT_SOURCE_DIR}/${folder}/*.cpp)
    else()
      file(GLOB files CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${folder}/*.h ${PROJECT_SOURCE_DIR}/${folder}/*.cpp)
    endif()
    set(included "")
    foreach(file ${files})
      file(STRINGS ${file} lines REGEX "^#include \"")
      foreach(line ${lines})
        string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" path "${line}")
        embpriv_folder_of_include("${path}" "${folders}" included_folder)
        if(included_folder AND NOT included_folder STREQUAL folder)
          list(APPEND included ${included_folder})
          if(NOT included_folder IN_LIST links)
            file(RELATIVE_PATH relative ${PROJECT_SOURCE_DIR} ${file})
            list(APPEND problems "${relative} includes ${path}, but ${folder} does not link ${included_folder}")
          endif()
        endif()
      endforeach()
    endforeach()
    foreach(linked ${links})
      if(NOT linked IN_LIST included)
        list(APPEND problems "${folder} links ${linked} but includes nothing from it")
      endif()
    endforeach()
  endforeach()
  if(problems)
    list(REMOVE_DUPLICATES problems)
    string(REPLACE ";" "\n  " text "${problems}")
    message(FATAL_ERROR "the folders' links and includes differ (cmake/folder_targets.cmake; CMakeLists.txt "
                        "names each folder's LINKS):\n  ${text}")
  endif()
endfunction()
