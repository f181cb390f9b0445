# The Debian package: cpack -G DEB in the build directory writes
# collviz_<version>_<arch>.deb (installed under /usr).
#   Depends:    dpkg-shlibdeps on collviz and collviz-rank (package_depends.cmake.in),
#               not on the NCCL module: it loads libnccl and libcudart at run
#               time when they are there, so the package needs neither.
#   The NCCL module loses its RUNPATH in the package (package_runpath.cmake).
#   Recommends: the fonts the window draws with (DejaVu Sans, Noto Sans CJK).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME collviz)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "collviz")
set(CPACK_PACKAGE_CONTACT "${COLLVIZ_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "see what collective communication really does")  # the synopsis
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "collviz runs the eight collectives (broadcast, scatter, gather, reduce,
all-gather, reduce-scatter, all-reduce, all-to-all) for real, one process
per rank: NCCL on the local GPUs when CUDA and NCCL are installed, Gloo on
the CPU otherwise, or Open MPI's own collectives when openmpi-bin is
installed. It draws the rank by shard grid before and after each op
from the bytes the communicator returned, decodes every block back to where
its data came from and checks it against a reference. It offers a window
for lectures, a command line, figure export (PNG, SVG, GIF, HTML), lecture
decks (PNG, SVG, PDF, HTML) and a bandwidth benchmark.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "fonts-dejavu-core, fonts-noto-cjk")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "xvfb, openmpi-bin")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)  # computed in package_depends.cmake instead
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Read by cpack before it packs: sets CPACK_DEBIAN_PACKAGE_DEPENDS.
file(GENERATE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/package_depends.cmake
     INPUT ${CMAKE_CURRENT_SOURCE_DIR}/package_depends.cmake.in)
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_CURRENT_BINARY_DIR}/package_depends.cmake)
# The packaged NCCL module without RUNPATH (a self-built install keeps it).
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_CURRENT_SOURCE_DIR}/package_runpath.cmake)
include(CPack)
