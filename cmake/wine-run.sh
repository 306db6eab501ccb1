#!/bin/sh
# CMAKE_CROSSCOMPILING_EMULATOR for the Windows build: runs a .exe under Wine, quietly, in the
# prefix scripts/test-windows.sh prepared (WINEPREFIX), or in ~/.wine.
export WINEDEBUG=-all
export WINEDLLOVERRIDES="mscoree,mshtml="
exec wine "$@"
