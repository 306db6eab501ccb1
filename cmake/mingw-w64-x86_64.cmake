# Cross build for 64-bit Windows with Debian's MinGW-w64 (posix thread model, which GoogleTest
# needs), statically linked so the .exe files need no MinGW DLLs, and run under Wine by CTest.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static -static-libgcc -static-libstdc++")
set(CMAKE_CROSSCOMPILING_EMULATOR ${CMAKE_CURRENT_LIST_DIR}/wine-run.sh)
# Libraries built for MinGW from Debian's sources by scripts/build-windows-deps.sh.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES PERFHIVE_WINDOWS_DEPS)
if(PERFHIVE_WINDOWS_DEPS)
  list(APPEND CMAKE_FIND_ROOT_PATH ${PERFHIVE_WINDOWS_DEPS})
endif()
