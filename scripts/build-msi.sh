#!/usr/bin/env bash
# Builds perfhive-agent-<version>-x64.msi from the cross-built agent and
# packaging/windows/perfhive-agent.wxs, on Debian, with Debian's tools only: wixl (package
# wixl), msibuild and msiinfo (msitools), and MinGW-w64's objcopy and strip. Beside the MSI it
# leaves perfhive-agent-<version>-x64.debug, the agent's debug information, which the installed
# (stripped) .exe names in its .gnu_debuglink: keep it with the release to read a crash's
# addresses (x86_64-w64-mingw32-addr2line -e perfhive-agent-<version>-x64.debug ADDRESS).
#
# Usage: build-msi.sh [--exe PATH] [--version X.Y.Z] [--output-dir DIR]
#   --exe         the agent (default build/mingw/agent/perfhive-agent.exe)
#   --version     the product version (default: project(VERSION) in CMakeLists.txt); the
#                 Windows Installer compares the first three numbers, so an MSI with a higher
#                 one upgrades an installed agent
#   --output-dir  where the MSI and the debug file go (default: the folder above the .exe's)
# `cmake --build build/mingw --target msi` runs it with this build's agent and version.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

exe="$root/build/mingw/agent/perfhive-agent.exe"
version=$(sed -n 's/^project(perfhive VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
out=""
while (($#)); do
  case "$1" in
    --exe) exe="$2"; shift 2 ;;
    --version) version="$2"; shift 2 ;;
    --output-dir) out="$2"; shift 2 ;;
    *) echo "build-msi: unknown argument '$1' (--exe, --version, --output-dir)" >&2; exit 2 ;;
  esac
done
out="${out:-$(dirname "$(dirname "$exe")")}"

for tool in wixl msibuild msiinfo x86_64-w64-mingw32-objcopy x86_64-w64-mingw32-strip; do
  if ! command -v "$tool" >/dev/null; then
    echo "build-msi: $tool is missing: apt-get install wixl msitools binutils-mingw-w64-x86-64" >&2
    exit 1
  fi
done
[[ -f $exe ]] || { echo "build-msi: no agent at $exe; build it first (scripts/test-windows.sh)" >&2; exit 1; }
# ProductVersion: major and minor up to 255, build up to 65535.
if ! [[ $version =~ ^([0-9]+)\.([0-9]+)\.([0-9]+)$ ]] || ((BASH_REMATCH[1] > 255 ||
    BASH_REMATCH[2] > 255 || BASH_REMATCH[3] > 65535)); then
  echo "build-msi: version '$version' is not MAJOR.MINOR.BUILD (255.255.65535 at most)" >&2
  exit 2
fi

mkdir -p "$out"
out="$(cd "$out" && pwd)"
name="perfhive-agent-$version-x64"
msi="$out/$name.msi"
debug="$out/$name.debug"
stage=$(mktemp -d "$out/.msi-stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT

# The installed .exe is stripped; the debug information goes beside the MSI, and the .exe names
# it (with its CRC) so that gdb or addr2line given both find each other.
x86_64-w64-mingw32-objcopy --only-keep-debug "$exe" "$debug"
x86_64-w64-mingw32-strip --strip-all -o "$stage/perfhive-agent.exe" "$exe"
x86_64-w64-mingw32-objcopy --add-gnu-debuglink="$debug" "$stage/perfhive-agent.exe"

wxs="$root/packaging/windows/perfhive-agent.wxs"
# wixl looks for a File's Source below the .wxs file's folder only.
agent=$(realpath --relative-to="$(dirname "$wxs")" "$stage/perfhive-agent.exe")
wixl --arch x64 -D Version="$version" -D AgentExe="$agent" -o "$stage/$name.msi" "$wxs"

# What wixl cannot write (perfhive-agent.wxs says why): the HideTarget bit of Configure, and the
# properties the elevated part of a managed install may receive: every property Configure's
# command line names, besides the upgrade's own that wixl listed.
row() { msiinfo export "$stage/$name.msi" "$1" | tr -d '\r' | awk -F'\t' -v key="$2" '$1 == key'; }
configure=$(row CustomAction Configure)
type=$(cut -f2 <<<"$configure")
properties=$(grep -o '\[[A-Z_]*\]' <<<"$(cut -f4 <<<"$configure")" | tr -d '[]' | paste -sd';')
secure="$(row Property SecureCustomProperties | cut -f2);$properties"
msibuild "$stage/$name.msi" \
  -q "UPDATE CustomAction SET Type = $((type | 0x2000)) WHERE Action = 'Configure'" \
  -q "UPDATE Property SET Value = '$secure' WHERE Property = 'SecureCustomProperties'"

# The order Windows Installer will follow, checked: Configure runs between the service's
# installation and its start, the old product goes before anything is installed, and the token
# is forgotten only after Configure has run.
sequence=$(msiinfo export "$stage/$name.msi" InstallExecuteSequence | tr -d '\r')
at() { awk -F'\t' -v action="$1" '$1 == action { print $3 }' <<<"$sequence"; }
check_order() {
  local previous=-1 action
  for action in "$@"; do
    local n
    n=$(at "$action")
    if [[ -z $n ]] || ((n <= previous)); then
      echo "build-msi: InstallExecuteSequence does not run $* in that order:" >&2
      echo "$sequence" >&2
      exit 1
    fi
    previous=$n
  done
}
check_order InstallValidate RemoveExistingProducts InstallInitialize
check_order InstallFiles InstallServices Configure StartServices InstallFinalize ForgetToken \
  ForgetEnroll

mv "$stage/$name.msi" "$msi"
size() { stat -c %s "$1"; }
echo "build-msi: $msi ($(size "$msi") bytes; perfhive-agent.exe $(size "$exe") bytes," \
  "$(size "$stage/perfhive-agent.exe") stripped; debug information $debug," \
  "$(size "$debug") bytes)"
