# The NCCL communicator, included from engine/CMakeLists.txt when
# COLLVIZ_NCCL is AUTO or ON. Only the NCCL module (libcollviz-nccl.so, which
# collviz-rank loads at run time) and the NCCL tests link CUDA and NCCL;
# collviz_engine, collviz-rank and the collviz binary never do.
#
#   AUTO: build it when the CUDA toolkit and NCCL are found, else say why and
#         build without it (collviz then has no NCCL backend).
#   ON:   the same, but a missing piece is a configure error.
#
# Hints: CUDAToolkit_ROOT (or nvcc on PATH), NCCL_ROOT / $ENV{NCCL_HOME}.

set(_nccl_required OFF)
if(COLLVIZ_NCCL STREQUAL "ON")
  set(_nccl_required ON)
endif()

# The communicator and the busbw loop are host C++ against the CUDA runtime
# and NCCL, compiled by the C++ compiler. The one device file, the rounds'
# reduce kernel (reduce_kernel.cu), is compiled by nvcc through a custom
# command below, not through CMake's CUDA language (CMake 3.25 knows no C++20
# flag for nvcc 13, and the kernel file is C++17). FindCUDAToolkit locates the
# toolkit through nvcc on PATH, CUDAToolkit_ROOT or /usr/local/cuda.
find_package(CUDAToolkit QUIET)

set(_nccl_hints ${NCCL_ROOT} $ENV{NCCL_ROOT} $ENV{NCCL_HOME})
if(CUDAToolkit_FOUND)
  list(APPEND _nccl_hints "${CUDAToolkit_LIBRARY_ROOT}" "${CUDAToolkit_TARGET_DIR}")
endif()
find_path(NCCL_INCLUDE_DIR nccl.h
  HINTS ${_nccl_hints} ${CUDAToolkit_INCLUDE_DIRS}
  PATHS /usr/local/cuda/include /usr/include
  PATH_SUFFIXES include)
find_library(NCCL_LIBRARY NAMES nccl
  HINTS ${_nccl_hints} ${CUDAToolkit_LIBRARY_DIR}
  PATHS /usr/local/cuda/lib /usr/local/cuda/lib64 /usr/lib/x86_64-linux-gnu
  PATH_SUFFIXES lib lib64)

set(_nccl_missing "")
if(NOT CUDAToolkit_FOUND)
  list(APPEND _nccl_missing "the CUDA toolkit (cuda_runtime.h, libcudart)")
endif()
if(NOT NCCL_INCLUDE_DIR)
  list(APPEND _nccl_missing "nccl.h")
endif()
if(NOT NCCL_LIBRARY)
  list(APPEND _nccl_missing "libnccl.so")
endif()
if(_nccl_missing)
  list(JOIN _nccl_missing ", " _nccl_missing)
  if(_nccl_required)
    message(FATAL_ERROR "COLLVIZ_NCCL=ON but not found: ${_nccl_missing}. "
      "Set CUDAToolkit_ROOT / NCCL_ROOT, or configure with -DCOLLVIZ_NCCL=AUTO or OFF.")
  endif()
  message(STATUS "collviz: NCCL backend not built (not found: ${_nccl_missing}); "
    "collviz runs on Gloo only")
  return()
endif()

file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _nccl_code REGEX "^#define NCCL_VERSION_CODE ")
string(REGEX REPLACE ".* ([0-9]+).*" "\\1" _nccl_code "${_nccl_code}")
message(STATUS "collviz: NCCL backend built (CUDA ${CUDAToolkit_VERSION}, nccl.h "
  "${_nccl_code} in ${NCCL_INCLUDE_DIR}, ${NCCL_LIBRARY})")

# The rounds' reduce kernel: SASS for sm_80 (A100) and sm_90 (H100/H200), and
# PTX for sm_80 so that newer GPUs compile it at load time.
if(NOT CUDAToolkit_NVCC_EXECUTABLE)
  message(FATAL_ERROR "collviz: nvcc not found (needed for the NCCL rounds' reduce kernel); "
    "set CUDAToolkit_ROOT, or configure with -DCOLLVIZ_NCCL=OFF")
endif()
set(_nccl_kernel_src ${CMAKE_CURRENT_LIST_DIR}/reduce_kernel.cu)
set(_nccl_kernel_obj ${CMAKE_CURRENT_BINARY_DIR}/nccl_reduce_kernel.o)
add_custom_command(OUTPUT ${_nccl_kernel_obj}
  COMMAND ${CUDAToolkit_NVCC_EXECUTABLE} -std=c++17 -O2 -Xcompiler -fPIC
          -ccbin ${CMAKE_CXX_COMPILER}
          -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90
          -gencode arch=compute_80,code=compute_80
          -I${PROJECT_SOURCE_DIR} -MD -MF ${_nccl_kernel_obj}.d
          -c ${_nccl_kernel_src} -o ${_nccl_kernel_obj}
  DEPENDS ${_nccl_kernel_src} ${CMAKE_CURRENT_LIST_DIR}/../reduce_ops.h
  DEPFILE ${_nccl_kernel_obj}.d
  COMMENT "nvcc: the NCCL rounds' reduce kernel (sm_80, sm_90, PTX compute_80)"
  VERBATIM)

# The NCCL communicator's sources (CUDA and NCCL appear only in these).
set(COLLVIZ_NCCL_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/communicator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lifecycle.cpp
  ${CMAKE_CURRENT_LIST_DIR}/host_pin.cpp
  ${CMAKE_CURRENT_LIST_DIR}/watchdog.cpp
  ${CMAKE_CURRENT_LIST_DIR}/probe.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nvml.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rounds.cpp
  ${_nccl_kernel_obj})

# A static library (the tests link the communicator directly), compiled
# position-independent because the module below is made from it. The module
# carries the engine code it uses too, so the engine is compiled
# position-independent as well; no symbol of either is ever interposed (the
# module exports only its C functions), which -fno-semantic-interposition
# tells the compiler.
add_library(collviz_nccl STATIC ${COLLVIZ_NCCL_SOURCES})
target_compile_options(collviz_nccl PRIVATE -fno-semantic-interposition)
target_include_directories(collviz_nccl PUBLIC ${PROJECT_SOURCE_DIR})
target_include_directories(collviz_nccl SYSTEM PRIVATE ${NCCL_INCLUDE_DIR})
# Shared CUDA runtime: without a driver, cudaGetDeviceCount returns an error
# (cudaErrorInsufficientDriver) instead of the process failing to start.
target_link_libraries(collviz_nccl
  PUBLIC collviz_worker nlohmann_json::nlohmann_json
  PRIVATE CUDA::cudart ${NCCL_LIBRARY} ${CMAKE_DL_LIBS})
get_filename_component(_nccl_libdir "${NCCL_LIBRARY}" DIRECTORY)

# The NCCL module, libcollviz-nccl.so next to collviz-rank (build/bin): the
# only file that needs libnccl and libcudart. collviz-rank loads it with
# dlopen for --backend nccl and --probe (nccl/loader.cpp), never for Gloo,
# so a broken CUDA or NCCL install cannot stop a Gloo run. It exports only
# the C functions of nccl/module.h (nccl/module.map).
add_library(collviz-nccl MODULE ${CMAKE_CURRENT_LIST_DIR}/module.cpp)
target_link_libraries(collviz-nccl PRIVATE collviz_nccl)
target_link_options(collviz-nccl PRIVATE
  -Wl,--version-script=${CMAKE_CURRENT_LIST_DIR}/module.map -Wl,--no-undefined)
set_target_properties(collviz-nccl PROPERTIES
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin
  LINK_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/module.map
  BUILD_RPATH "${_nccl_libdir}"
  # Installed (packaging/): RUNPATH keeps the directories of the libnccl and
  # libcudart it was linked against, so a self-built install finds them where
  # they were; on a machine without them the loader skips those directories
  # and finds the libraries through ld.so.conf and LD_LIBRARY_PATH, or the
  # module does not load and NCCL is unavailable with the loader's reason.
  INSTALL_RPATH_USE_LINK_PATH ON)

target_sources(collviz-rank PRIVATE ${CMAKE_CURRENT_LIST_DIR}/loader.cpp)
target_link_libraries(collviz-rank PRIVATE ${CMAKE_DL_LIBS})
target_compile_definitions(collviz-rank PRIVATE COLLVIZ_HAVE_NCCL=1)
if(COLLVIZ_NCCL_COVERAGE)  # tests/standin/coverage.sh: only this folder's files counted
  target_compile_options(collviz_nccl PRIVATE --coverage -O0)
  target_compile_options(collviz-nccl PRIVATE --coverage -O0)
  # -u: the fork harness's weak __gcov_dump (tests/engine/worker/nccl_group.cpp) pulls libgcov's in
  target_link_options(collviz_nccl INTERFACE --coverage -Wl,--undefined=__gcov_dump)
  target_link_options(collviz-nccl PRIVATE --coverage)
  set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/loader.cpp TARGET_DIRECTORY collviz-rank
                              PROPERTIES COMPILE_OPTIONS "--coverage;-O0")
  target_link_options(collviz-rank PRIVATE --coverage)
endif()
add_dependencies(collviz-rank collviz-nccl)

# A plain NCCL all_reduce busbw loop (tests/gpu/device_check.sh compares the
# engine against it), with the same placement and environment.
if(COLLVIZ_TESTS)
  add_executable(nccl-allreduce-loop
    ${PROJECT_SOURCE_DIR}/tests/gpu/nccl_allreduce_loop.cpp
    ${PROJECT_SOURCE_DIR}/engine/group/placement.cpp)
  target_include_directories(nccl-allreduce-loop PRIVATE ${PROJECT_SOURCE_DIR})
  target_include_directories(nccl-allreduce-loop SYSTEM PRIVATE ${NCCL_INCLUDE_DIR})
  target_link_libraries(nccl-allreduce-loop PRIVATE CUDA::cudart ${NCCL_LIBRARY})
  set_target_properties(nccl-allreduce-loop PROPERTIES BUILD_RPATH "${_nccl_libdir}")
  # The ranks of collviz watch's NCCL tests and of the device check's watch
  # step in place of PyTorch (issue 59).
  add_executable(nccl-watch-ranks ${PROJECT_SOURCE_DIR}/tests/gpu/nccl_watch_ranks.cpp)
  target_include_directories(nccl-watch-ranks SYSTEM PRIVATE ${NCCL_INCLUDE_DIR})
  target_link_libraries(nccl-watch-ranks PRIVATE CUDA::cudart ${NCCL_LIBRARY})
  set_target_properties(nccl-watch-ranks PROPERTIES BUILD_RPATH "${_nccl_libdir}")
endif()
