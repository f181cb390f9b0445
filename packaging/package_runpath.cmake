# Run by cpack after it installs into its staging tree (CPACK_PRE_BUILD_SCRIPTS):
# the packaged NCCL module loses the RUNPATH a self-built install keeps. A
# Debian package must not carry one (lintian: custom-library-search-path);
# there libnccl and libcudart are found through ld.so.conf (NVIDIA's CUDA and
# NCCL packages register their directories) or LD_LIBRARY_PATH.
file(GLOB_RECURSE _modules "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/*/libcollviz-nccl.so")
foreach(m IN LISTS _modules)
  file(RPATH_REMOVE FILE "${m}")
  message(STATUS "collviz: RUNPATH removed from the packaged ${m}")
endforeach()
