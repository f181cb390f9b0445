# The engine's layers, checked at configure (and by tests/engine/layers_test.sh
# in script mode: cmake -DENGINE_DIR=DIR -P cmake/engine_layers.cmake).
#
# From the bottom up; a file may include its own layer and those below it,
# never one above, and no worker backend folder includes another:
#   base     engine/*.h|cpp at the top (texts, errors, collectives, spec,
#            dtype, snapshots, version), except engine.* (the core)
#   verify   engine/verify/
#   algo     engine/algo/ (and algo/msccl/)
#   job      engine/job/ (a real job's files read back: NCCL's own logs in
#            job/nccl_log/, Flight Recorder dumps, RAS, Inspector, profiler
#            traces, nccl-tests output): over base only, so any layer above
#            may read a job and a job needs nothing of how collviz runs ops
#   group    engine/group/
#   worker   engine/worker/ (the rank process's backend-free parts)
#   gloo, nccl, mpi   engine/worker/<backend>/: each over worker, never
#            another backend; worker/main.cpp (collviz-rank's main) wires
#            them and may include each
#   core     engine/engine.*, engine/program/ (over worker and job, never a
#            backend)
#   bench    engine/bench/ (over core)
# Configuring fails with the file, the line and the rule it breaks.
if(CMAKE_SCRIPT_MODE_FILE)
  cmake_minimum_required(VERSION 3.25)
endif()

function(_collviz_layer path out)  # path relative to engine/, or "engine/..." include
  string(REGEX REPLACE "^engine/" "" p "${path}")
  if(p MATCHES "^verify/")
    set(l verify)
  elseif(p MATCHES "^algo/")
    set(l algo)
  elseif(p MATCHES "^job/")
    set(l job)
  elseif(p MATCHES "^group/")
    set(l group)
  elseif(p MATCHES "^worker/(gloo|nccl|mpi)/")
    set(l ${CMAKE_MATCH_1})
  elseif(p STREQUAL "worker/main.cpp")
    set(l rank)
  elseif(p MATCHES "^worker/")
    set(l worker)
  elseif(p MATCHES "^program/" OR p MATCHES "^engine\\.(h|cpp)$")
    set(l core)
  elseif(p MATCHES "^bench/")
    set(l bench)
  elseif(p MATCHES "^[^/]+$")
    set(l base)
  else()
    set(l unknown)
  endif()
  set(${out} ${l} PARENT_SCOPE)
endfunction()

# What each layer may include.
set(_collviz_may_base base)
set(_collviz_may_verify base verify)
set(_collviz_may_job base job)
set(_collviz_may_algo base verify algo)
set(_collviz_may_group base verify algo group)
set(_collviz_may_worker base verify algo group worker)
set(_collviz_may_gloo base verify algo group worker gloo)
set(_collviz_may_nccl base verify algo group worker nccl)
set(_collviz_may_mpi base verify algo group worker mpi)
set(_collviz_may_rank base verify algo group worker gloo nccl mpi)
set(_collviz_may_core base verify algo group worker job core)
set(_collviz_may_bench base verify algo group worker job core bench)

function(collviz_check_layers engine_dir)
  file(GLOB_RECURSE files RELATIVE ${engine_dir}
       ${engine_dir}/*.h ${engine_dir}/*.cpp ${engine_dir}/*.cu)
  set(problems "")
  foreach(f IN LISTS files)
    _collviz_layer(${f} from)
    if(from STREQUAL "unknown")
      list(APPEND problems "engine/${f}: in no layer (a new folder? add it to cmake/engine_layers.cmake)")
      continue()
    endif()
    file(STRINGS ${engine_dir}/${f} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"engine/")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE ".*\"(engine/[^\"]+)\".*" "\\1" inc "${line}")
      _collviz_layer(${inc} to)
      set(allowed ${_collviz_may_${from}})
      if(NOT to IN_LIST allowed)
        list(JOIN allowed ", " a)
        list(APPEND problems "engine/${f}: `${line}`: ${from} may include only ${a}, not ${to}")
      endif()
      # Headers of the top the layer of what they define, not of where they lie.
      if(from STREQUAL "base" AND inc MATCHES "^engine/engine\\.h$")
        list(APPEND problems "engine/${f}: `${line}`: base may not include the core")
      endif()
    endforeach()
  endforeach()
  if(problems)
    list(JOIN problems "\n  " text)
    message(FATAL_ERROR "engine layers (cmake/engine_layers.cmake) broken:\n  ${text}")
  endif()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND ENGINE_DIR)
  collviz_check_layers(${ENGINE_DIR})
  message(STATUS "engine layers hold")
endif()
