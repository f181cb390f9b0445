# The MPI communicator (Open MPI), included from engine/CMakeLists.txt when
# COLLVIZ_MPI is AUTO or ON. Only the MPI module (libcollviz-mpi.so, which
# collviz-rank loads at run time for --backend mpi) links libmpi; collviz,
# collviz-rank and collviz_engine never do, so a machine without Open MPI
# runs Gloo and says why MPI is unavailable.
#
#   AUTO: build it when MPI's C library is found, else say why and go on.
#   ON:   the same, but a missing MPI is a configure error.
find_package(MPI COMPONENTS C QUIET)
if(NOT MPI_C_FOUND)
  if(COLLVIZ_MPI STREQUAL "ON")
    message(FATAL_ERROR "COLLVIZ_MPI=ON but MPI (mpi.h, libmpi) was not found: "
      "apt-get install libopenmpi-dev, or configure with -DCOLLVIZ_MPI=AUTO or OFF.")
  endif()
  message(STATUS "collviz: MPI backend not built (Open MPI's mpi.h/libmpi not found: "
    "apt-get install libopenmpi-dev); collviz runs without --backend mpi")
  return()
endif()
message(STATUS "collviz: MPI backend built (MPI ${MPI_C_VERSION}, ${MPI_C_LIB_NAMES})")

set(COLLVIZ_MPI_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/communicator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/common.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rounds.cpp)
add_library(collviz_mpi STATIC ${COLLVIZ_MPI_SOURCES})
target_compile_options(collviz_mpi PRIVATE -fno-semantic-interposition)
# The C API only: Open MPI's mpi.h pulls in its deprecated C++ bindings otherwise.
target_compile_definitions(collviz_mpi PRIVATE OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)
target_link_libraries(collviz_mpi PUBLIC collviz_worker nlohmann_json::nlohmann_json
  PRIVATE MPI::MPI_C)

# The module next to collviz-rank (build/bin); exports only mpi/module.h's C
# functions (mpi/module.map).
add_library(collviz-mpi MODULE ${CMAKE_CURRENT_LIST_DIR}/module.cpp)
target_link_libraries(collviz-mpi PRIVATE collviz_mpi)
target_link_options(collviz-mpi PRIVATE
  -Wl,--version-script=${CMAKE_CURRENT_LIST_DIR}/module.map -Wl,--no-undefined)
set_target_properties(collviz-mpi PROPERTIES
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin
  LINK_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/module.map)

target_sources(collviz-rank PRIVATE ${CMAKE_CURRENT_LIST_DIR}/loader.cpp)
target_link_libraries(collviz-rank PRIVATE ${CMAKE_DL_LIBS})
target_compile_definitions(collviz-rank PRIVATE COLLVIZ_HAVE_MPI=1)
add_dependencies(collviz-rank collviz-mpi)
set(COLLVIZ_HAVE_MPI ON PARENT_SCOPE)

# A plain MPI loop (tests/bench/mpi_plain_loop.cpp): the engine's MPI figures
# beside MPI with nothing around it.
if(COLLVIZ_BENCH)
  add_executable(mpi-plain-loop ${PROJECT_SOURCE_DIR}/tests/bench/mpi_plain_loop.cpp)
  target_link_libraries(mpi-plain-loop PRIVATE MPI::MPI_C)
  target_compile_definitions(mpi-plain-loop PRIVATE OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)
  set_target_properties(mpi-plain-loop PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
endif()
