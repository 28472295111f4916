# LibTorch for embpriv: 1.13 (Debian's libtorch-dev) or 2.x (a LibTorch zip, or the one inside a
# pip or conda `torch` package); docs/gpu.md.
#
# Where it is found: CMAKE_PREFIX_PATH or Torch_DIR as usual, or EMBPRIV_TORCH_PYTHON=/path/to/
# python3, which asks that interpreter for torch.utils.cmake_prefix_path (the LibTorch its
# `torch` package loads) and builds the Python module for that interpreter.
#
# What LibTorch brings itself through the `torch` target of TorchConfig.cmake, so that every
# layer linking ${TORCH_LIBRARIES} gets it: its -D_GLIBCXX_USE_CXX11_ABI flag (in
# TORCH_CXX_FLAGS), its CUDA libraries (torch_cuda, c10_cuda, the CUDA runtime) and the C++
# standard it needs as a compile feature (2.x needs C++17, which embpriv uses anyway).
# STRING, not FILEPATH: CMake turns a relative FILEPATH given with -D into a path under the
# current folder, so `-DEMBPRIV_TORCH_PYTHON=python3` became ./python3, which cannot import torch.
# A bare name is looked up on PATH (find_program), a relative path is taken from the current folder.
set(EMBPRIV_TORCH_PYTHON "" CACHE STRING "A python3 whose torch package's LibTorch embpriv builds against")
set(EMBPRIV_TORCH_PYTHON_EXECUTABLE "")
if(EMBPRIV_TORCH_PYTHON)
  if(IS_ABSOLUTE "${EMBPRIV_TORCH_PYTHON}")
    set(EMBPRIV_TORCH_PYTHON_EXECUTABLE "${EMBPRIV_TORCH_PYTHON}")
  elseif(EMBPRIV_TORCH_PYTHON MATCHES "/")
    get_filename_component(EMBPRIV_TORCH_PYTHON_EXECUTABLE "${EMBPRIV_TORCH_PYTHON}" ABSOLUTE BASE_DIR "$ENV{PWD}")
  else()
    unset(embpriv_torch_python_program CACHE)
    find_program(embpriv_torch_python_program "${EMBPRIV_TORCH_PYTHON}")
    set(EMBPRIV_TORCH_PYTHON_EXECUTABLE "${embpriv_torch_python_program}")
    unset(embpriv_torch_python_program CACHE)
    if(NOT EMBPRIV_TORCH_PYTHON_EXECUTABLE)
      message(FATAL_ERROR "EMBPRIV_TORCH_PYTHON=${EMBPRIV_TORCH_PYTHON}: no such program on PATH")
    endif()
  endif()
  if(NOT EXISTS "${EMBPRIV_TORCH_PYTHON_EXECUTABLE}" OR IS_DIRECTORY "${EMBPRIV_TORCH_PYTHON_EXECUTABLE}")
    message(FATAL_ERROR "EMBPRIV_TORCH_PYTHON=${EMBPRIV_TORCH_PYTHON}: ${EMBPRIV_TORCH_PYTHON_EXECUTABLE} is not a program")
  endif()
  execute_process(COMMAND "${EMBPRIV_TORCH_PYTHON_EXECUTABLE}" -c "import torch; print(torch.utils.cmake_prefix_path)"
                  OUTPUT_VARIABLE torch_python_prefix OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE torch_python_status ERROR_VARIABLE torch_python_error)
  if(NOT torch_python_status EQUAL 0)
    string(STRIP "${torch_python_error}" torch_python_error)
    string(REGEX REPLACE ".*\n" "" torch_python_error "${torch_python_error}")  # the exception's line
    message(FATAL_ERROR "EMBPRIV_TORCH_PYTHON=${EMBPRIV_TORCH_PYTHON} (${EMBPRIV_TORCH_PYTHON_EXECUTABLE}) cannot import torch: ${torch_python_error}")
  endif()
  # Debian's python3-torch names a folder it does not ship (its LibTorch is libtorch-dev's, found
  # in the system paths); pip's and conda's ship TorchConfig.cmake there.
  if(EXISTS "${torch_python_prefix}/Torch/TorchConfig.cmake")
    list(PREPEND CMAKE_PREFIX_PATH "${torch_python_prefix}")
  endif()
  if(NOT DEFINED PYTHON_EXECUTABLE)
    set(PYTHON_EXECUTABLE "${EMBPRIV_TORCH_PYTHON_EXECUTABLE}" CACHE FILEPATH "The Python of the embpriv module")
  endif()
endif()

find_package(Torch REQUIRED)

# The version, from the header (Debian's TorchConfig.cmake has no version file): torch/version.h
# under one of the include folders, with TORCH_VERSION_MAJOR/MINOR/PATCH; newer LibTorch keeps
# those in torch/headeronly/version.h, which torch/version.h includes. Then TorchConfigVersion.cmake's
# version, then the version of EMBPRIV_TORCH_PYTHON's torch (without its local part, +cu130).
set(EMBPRIV_TORCH_VERSION "")
set(torch_version_headers "")
foreach(dir ${TORCH_INCLUDE_DIRS} "${TORCH_INSTALL_PREFIX}/include" "${TORCH_INSTALL_PREFIX}/include/torch/csrc/api/include")
  foreach(name torch/version.h torch/headeronly/version.h)
    if(EXISTS "${dir}/${name}")
      list(APPEND torch_version_headers "${dir}/${name}")
    endif()
  endforeach()
endforeach()
foreach(header ${torch_version_headers})
  if(NOT EMBPRIV_TORCH_VERSION)
    file(READ "${header}" version_text)
    if(version_text MATCHES "#define TORCH_VERSION_MAJOR ([0-9]+)")
      set(major ${CMAKE_MATCH_1})
      if(version_text MATCHES "#define TORCH_VERSION_MINOR ([0-9]+)")
        set(minor ${CMAKE_MATCH_1})
        if(version_text MATCHES "#define TORCH_VERSION_PATCH ([0-9]+)")
          set(EMBPRIV_TORCH_VERSION "${major}.${minor}.${CMAKE_MATCH_1}")
        endif()
      endif()
    endif()
  endif()
endforeach()
if(NOT EMBPRIV_TORCH_VERSION AND Torch_VERSION)
  set(EMBPRIV_TORCH_VERSION "${Torch_VERSION}")
endif()
if(NOT EMBPRIV_TORCH_VERSION AND EMBPRIV_TORCH_PYTHON_EXECUTABLE)
  execute_process(COMMAND "${EMBPRIV_TORCH_PYTHON_EXECUTABLE}" -c "import torch; print(torch.__version__.split('+')[0])"
                  OUTPUT_VARIABLE EMBPRIV_TORCH_VERSION OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
if(NOT EMBPRIV_TORCH_VERSION)
  set(EMBPRIV_TORCH_VERSION "(version unknown)")
  message(WARNING "no torch/version.h under ${TORCH_INCLUDE_DIRS}: the LibTorch version is unknown")
endif()
if(EMBPRIV_TORCH_VERSION MATCHES "^[0-9]" AND EMBPRIV_TORCH_VERSION VERSION_LESS 1.13)
  message(FATAL_ERROR "LibTorch ${EMBPRIV_TORCH_VERSION} in ${Torch_DIR} is older than 1.13, the oldest embpriv builds against")
endif()

# The std::string ABI: yaml-cpp is a compiled C++ library with std::string in its interface, and
# Debian builds it with the C++11 ABI; a LibTorch built with the old one (-D_GLIBCXX_USE_CXX11_ABI=0:
# PyTorch's pip wheels before 2.7, LibTorch's "Pre-cxx11 ABI" zip) forces that flag on every file
# that includes it, and the link with yaml-cpp then fails on every std::string symbol.
set(EMBPRIV_TORCH_CXX11_ABI 1)
if(TORCH_CXX_FLAGS MATCHES "_GLIBCXX_USE_CXX11_ABI=0")
  set(EMBPRIV_TORCH_CXX11_ABI 0)
  message(FATAL_ERROR "The LibTorch in ${Torch_DIR} (${EMBPRIV_TORCH_VERSION}) uses the pre-C++11 "
                      "std::string ABI (-D_GLIBCXX_USE_CXX11_ABI=0), but yaml-cpp (Debian's, or "
                      "EMBPRIV_DEPS_PREFIX's) uses the C++11 ABI: use a LibTorch built with the "
                      "C++11 ABI (conda's pytorch, pip's torch 2.7 or later, LibTorch's cxx11-ABI zip)")
endif()

set(EMBPRIV_TORCH_CUDA OFF)
if(TARGET torch_cuda OR "${TORCH_LIBRARIES}" MATCHES "cuda")
  set(EMBPRIV_TORCH_CUDA ON)
endif()
if(EMBPRIV_CUDA AND NOT EMBPRIV_TORCH_CUDA)
  message(FATAL_ERROR "EMBPRIV_CUDA=ON, but the LibTorch found in ${Torch_DIR} has no CUDA; "
                      "pass -DCMAKE_PREFIX_PATH=/path/to/a/cuda/libtorch or -DEMBPRIV_TORCH_PYTHON=$(which python3)")
endif()
if(EMBPRIV_TORCH_CUDA)
  # embpriv calls no symbol of libtorch_cuda.so; it registers the CUDA backend when loaded. A
  # linker that defaults to --as-needed (Ubuntu's) would drop it, and at::hasCUDA() would be false.
  add_link_options("LINKER:--no-as-needed")
endif()
message(STATUS "embpriv: LibTorch ${EMBPRIV_TORCH_VERSION} from ${Torch_DIR} "
               "(C++11 ABI: ${EMBPRIV_TORCH_CXX11_ABI}, CUDA: ${EMBPRIV_TORCH_CUDA})")
