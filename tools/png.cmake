# duo_use_png(<target>): <target> compiles tools/png_rgb.c; with libpng
# found, that file writes PNG files, without it its writer fails with a
# message naming the missing library (duo-julia --png, duo-lens --png,
# duo-compare --png).
find_package(PNG)
if(NOT PNG_FOUND)
  message(STATUS "libpng not found: duo-julia, duo-lens and duo-compare "
                 "are built without --png")
endif()
function(duo_use_png target)
  if(PNG_FOUND)
    set_source_files_properties(${PROJECT_SOURCE_DIR}/tools/png_rgb.c
      TARGET_DIRECTORY ${target} PROPERTIES COMPILE_DEFINITIONS DUO_HAVE_PNG=1)
    target_link_libraries(${target} PRIVATE PNG::PNG)
  endif()
endfunction()
