# SPDX-License-Identifier: GPL-3.0-or-later
# cmake -DVERSION=X.Y.Z -DGIT=… -DSOURCE_DIR=… -DOUT=…/accumlab_version.h -P write_version.cmake
set(full "${VERSION}")
if(GIT AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT}" -C "${SOURCE_DIR}" describe --always --abbrev=7 --exclude=*
                  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET RESULT_VARIABLE failed)
  if(NOT failed AND commit)
    set(full "${VERSION}+g${commit}")
  endif()
endif()
set(text "// Written by app/version/write_version.cmake at build time.
#pragma once
#define ACCUMLAB_VERSION \"${VERSION}\"
#define ACCUMLAB_VERSION_FULL \"${full}\"
")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
