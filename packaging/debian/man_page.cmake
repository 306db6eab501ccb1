# Writes a program's man page, gzipped as Debian ships them, from what the program says of
# itself: help2man turns `PROGRAM --help` into the page, and every subcommand's `--help` (the
# "Subcommands:" CLI11 lists) into a part of its COMMANDS section. So the page says what --help
# says, always. INCLUDE adds sections written by hand (FILES, SEE ALSO: help2man's include
# format). The date is the changelog's newest entry's, so the page does not change from one
# build to the next.
#
#   cmake -DPROGRAM=... -DSECTION=8 -DDESCRIPTION="..." -DINCLUDE=... -DCHANGELOG=...
#         -DOUTPUT=.../perfhive-agent.8.gz -P man_page.cmake

foreach(variable PROGRAM SECTION DESCRIPTION INCLUDE CHANGELOG OUTPUT)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "man_page.cmake: give -D${variable}=...")
  endif()
endforeach()
find_program(HELP2MAN help2man)
find_program(GZIP gzip)
if(NOT HELP2MAN)
  message(FATAL_ERROR "help2man makes the packages' man pages: apt-get install help2man")
endif()
execute_process(COMMAND dpkg-parsechangelog -l ${CHANGELOG} -S Timestamp
                OUTPUT_VARIABLE timestamp OUTPUT_STRIP_TRAILING_WHITESPACE
                COMMAND_ERROR_IS_FATAL ANY)
set(ENV{SOURCE_DATE_EPOCH} ${timestamp})
get_filename_component(name ${PROGRAM} NAME)

execute_process(COMMAND ${PROGRAM} --help OUTPUT_VARIABLE help COMMAND_ERROR_IS_FATAL ANY)
string(REGEX MATCH "\nSubcommands:\n.*" listed "${help}")
string(REGEX MATCHALL "\n  [a-z]+ " subcommands "${listed}")
set(commands "")
foreach(subcommand IN LISTS subcommands)
  string(STRIP "${subcommand}" subcommand)
  execute_process(COMMAND ${HELP2MAN} --no-info --help-option "${subcommand} --help"
                          --name "${DESCRIPTION}" ${PROGRAM}
                  OUTPUT_VARIABLE page COMMAND_ERROR_IS_FATAL ANY)
  # The subcommand's own page, from its synopsis on: a subsection of COMMANDS, its headings
  # turned into paragraphs.
  string(REGEX REPLACE ".*\n\\.SH SYNOPSIS\n" "" page "${page}")
  string(REPLACE "\n.SH DESCRIPTION\n" "\n.PP\n" page "${page}")
  string(REPLACE "\n.SH OPTIONS\n" "\n.PP\nOptions:\n" page "${page}")
  string(REGEX REPLACE "\n\\.S[HS] \"?([^\n\"]*)\"?\n" "\n.PP\n\\1\n" page "${page}")
  string(APPEND commands ".SS \"${name} ${subcommand}\"\n${page}")
endforeach()
set(includes --include ${INCLUDE})
if(commands)
  file(WRITE ${OUTPUT}.h2m "[COMMANDS]\n${commands}")
  list(APPEND includes --include ${OUTPUT}.h2m)
endif()

string(REGEX REPLACE "\\.gz$" "" page ${OUTPUT})
execute_process(COMMAND ${HELP2MAN} --no-info --section ${SECTION} --name "${DESCRIPTION}"
                        ${includes} --output ${page} ${PROGRAM}
                COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${GZIP} -9nf ${page} COMMAND_ERROR_IS_FATAL ANY)
