# Writes OUT, the man page collviz.1: TEMPLATE (collviz.1.in, the written
# sections) with @VERSION@ and @COMMANDS@ filled in; COMMANDS is each
# command's --help as COLLVIZ prints it, so the page never lags the options.
#   cmake -DCOLLVIZ=... -DTEMPLATE=... -DOUT=... -DVERSION=... -P man.cmake
function(help_of out)
  execute_process(COMMAND env LANG=C LC_ALL=C ${COLLVIZ} ${ARGN} --help
                  OUTPUT_VARIABLE text ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "collviz ${ARGN} --help failed (${rc}): ${err}")
  endif()
  string(REPLACE "${COLLVIZ}" "collviz" text "${text}")  # "Usage: collviz run", not the build's path
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Text shown as is: roff's escape character and a line's leading . or ' quoted.
function(roff_literal out text)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

help_of(top)
# The command names: the lines of the Subcommands: block ("  run   ...").
string(REGEX MATCH "(SUBCOMMANDS|Subcommands):\n(.*)" block "${top}")
string(REGEX MATCHALL "\n  [a-z][a-z_-]* " names "\n${CMAKE_MATCH_2}")
if(NOT names)
  message(FATAL_ERROR "collviz --help lists no Subcommands:\n${top}")
endif()
roff_literal(top_roff "${top}")
set(commands ".SS collviz\n.nf\n${top_roff}.fi\n")
foreach(n IN LISTS names)
  string(STRIP "${n}" n)
  help_of(text ${n})
  roff_literal(text "${text}")
  string(APPEND commands ".SS collviz ${n}\n.nf\n${text}.fi\n")
endforeach()
file(READ ${TEMPLATE} page)
string(REPLACE "@VERSION@" "${VERSION}" page "${page}")
string(REPLACE "@COMMANDS@\n" "${commands}" page "${page}")
file(WRITE ${OUT} "${page}")
