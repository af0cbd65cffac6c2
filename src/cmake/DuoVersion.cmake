# DuoVersion.cmake - DUO_HEADER_VERSION ("MAJOR.MINOR.PATCH") from the
# DUO_VERSION_* macros of include/duo/version.h, the one place the version
# is written; the top CMakeLists.txt gives it to project().
file(STRINGS ${CMAKE_CURRENT_LIST_DIR}/../../include/duo/version.h
     duo_version_lines REGEX "^#define DUO_VERSION_(MAJOR|MINOR|PATCH) ")
set(DUO_HEADER_VERSION "")
foreach(part MAJOR MINOR PATCH)
  set(duo_version_${part} "")
  foreach(line IN LISTS duo_version_lines)
    if(line MATCHES "^#define DUO_VERSION_${part} +([0-9]+)$")
      set(duo_version_${part} ${CMAKE_MATCH_1})
    endif()
  endforeach()
  if(duo_version_${part} STREQUAL "")
    message(FATAL_ERROR "include/duo/version.h: no '#define "
                        "DUO_VERSION_${part} <number>' line")
  endif()
endforeach()
set(DUO_HEADER_VERSION
    "${duo_version_MAJOR}.${duo_version_MINOR}.${duo_version_PATCH}")
