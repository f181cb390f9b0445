# The app's pure libraries (lang/, view/, files/, lecture/, cli/) include no
# ImGui, GL or GLFW header, directly or through a header of a folder above
# them (gl/, panels/, export/). Included by app/CMakeLists.txt, which checks
# each pure library at configure time (collviz_check_pure); run on its own,
#   cmake -DAPP_DIR=path/to/app -P app/purity.cmake
# it checks every source and header of those folders (tests/app/purity_test.sh).
# Either way the first include that breaks the rule fails, naming the file,
# the line and what the folder may not include.

set(COLLVIZ_PURE_FOLDERS lang view files lecture cli)

function(_collviz_check_pure_files lib)
  foreach(f IN LISTS ARGN)
    if(NOT EXISTS ${f})
      continue()  # generated
    endif()
    file(STRINGS ${f} lines REGEX "^[ \t]*#[ \t]*include")
    foreach(line IN LISTS lines)
      if(line MATCHES "[<\"](imgui|backends/imgui|GLFW/|epoxy/|GL/|app/gl/|app/panels/|app/export/)")
        message(FATAL_ERROR "${f}: `${line}`: ${lib} is pure code; it may not include ImGui, "
                            "GL, GLFW or the app's gl/, panels/ or export/ folders")
      endif()
    endforeach()
  endforeach()
endfunction()

# A library's sources and its folder's headers.
function(collviz_check_pure lib)
  get_target_property(sources ${lib} SOURCES)
  get_target_property(dir ${lib} SOURCE_DIR)
  file(GLOB headers ${dir}/*.h)
  set(files "")
  foreach(f IN LISTS sources headers)
    if(NOT IS_ABSOLUTE ${f})
      set(f ${dir}/${f})
    endif()
    list(APPEND files ${f})
  endforeach()
  _collviz_check_pure_files(${lib} ${files})
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND DEFINED APP_DIR)
  foreach(d IN LISTS COLLVIZ_PURE_FOLDERS)
    if(NOT IS_DIRECTORY ${APP_DIR}/${d})
      message(FATAL_ERROR "${APP_DIR}/${d}: no such folder (the pure folders are ${COLLVIZ_PURE_FOLDERS})")
    endif()
    file(GLOB files ${APP_DIR}/${d}/*.cpp ${APP_DIR}/${d}/*.h)
    _collviz_check_pure_files(collviz_${d} ${files})
  endforeach()
  message(STATUS "app/: ${COLLVIZ_PURE_FOLDERS} are pure")
endif()
