#!/usr/bin/env bash
# install-toolchains.sh: installs every toolchain the guest SDK builds and
# tests need, from Debian's packages and the npm registry only.
#
#   scripts/install-toolchains.sh          # install what is missing
#   scripts/install-toolchains.sh --check  # only report what is missing (exit 1 if anything is)
#
# Idempotent: Debian packages already installed are skipped (apt-get update
# runs at most once, and only when something must be installed), and `npm ci`
# runs only where node_modules is missing or older than package-lock.json.
# Any failure stops the script with a message naming the step that failed.
#
# Go itself is not installed here: the repository's go.mod names the Go
# version, and building the host needs it already.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CHECK_ONLY=0
if [[ "${1:-}" == "--check" ]]; then CHECK_ONLY=1; fi

die() { echo "install-toolchains: error: $*" >&2; exit 1; }
say() { echo "install-toolchains: $*"; }

# Debian packages, with what needs each:
#   clang, lld                    C guests (freestanding wasm32) and wasm-ld for Rust
#   llvm                          llvm-ar, which archives the C SDK's libaclwasm.a (GNU ar writes
#                                 no symbol index for wasm objects, and wasm-ld needs one)
#   wasi-libc, libclang-rt-14-dev-wasm32
#                                 C guests with wasi-libc (wasm32-wasi)
#   libc++-14-dev-wasm32, libc++abi-14-dev-wasm32
#                                 C++ guests (clang++ --target=wasm32-wasi): the C++
#                                 standard library and its ABI library for wasm32
#   wabt                          WAT guests (wat2wasm) and wasm-objdump
#   rustc, cargo, libstd-rust-dev-wasm32
#                                 Rust guests (Debian's rustc has the wasm32 targets)
#   gcc                           cgo and native test helpers
#   curl                          scripts/serve-test.sh (make serve-test)
#   ca-certificates               the deploy tests pack it, with the always installed base-files, libc6,
#                                 libstdc++6, libgcc-s1 and gcc-12-base, into the test image's packages
#                                 (dpkg-deb); make image downloads the same packages (apt-get download)
#   nodejs, npm                   AssemblyScript guests
#   python3-onnx, python3-numpy   the ONNX models the tests write (acl/sim/model/testdata/genmodels.py)
#                                 and the outputs numpy computes for them
PACKAGES=(clang lld llvm wasi-libc libclang-rt-14-dev-wasm32 libc++-14-dev-wasm32 libc++abi-14-dev-wasm32 wabt rustc cargo libstd-rust-dev-wasm32 gcc curl ca-certificates python3-onnx python3-numpy)
# Node is often installed outside apt (as here); only ask apt for it when
# there is no node/npm at all.
if ! command -v node >/dev/null 2>&1; then PACKAGES+=(nodejs); fi
if ! command -v npm >/dev/null 2>&1; then PACKAGES+=(npm); fi

missing=()
for p in "${PACKAGES[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep 'install ok installed' >/dev/null; then
		missing+=("$p")
	fi
done

if ((${#missing[@]})); then
	if ((CHECK_ONLY)); then
		say "missing Debian packages: ${missing[*]}"
	else
		if [[ $(id -u) -ne 0 ]]; then
			SUDO=sudo
			command -v sudo >/dev/null 2>&1 || die "not root and no sudo: cannot install ${missing[*]}"
		else
			SUDO=
		fi
		say "installing Debian packages: ${missing[*]}"
		$SUDO apt-get update -q || die "apt-get update failed"
		DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" ||
			die "apt-get install failed for: ${missing[*]}"
	fi
else
	say "Debian packages present: ${PACKAGES[*]}"
fi

# npm projects: every committed package-lock.json outside node_modules.
npm_missing=0
while IFS= read -r lock; do
	dir="$(dirname "$lock")"
	rel="${dir#"$ROOT"/}"
	if [[ -d "$dir/node_modules" && "$dir/node_modules" -nt "$lock" ]]; then
		say "npm packages present in $rel"
		continue
	fi
	if ((CHECK_ONLY)); then
		say "npm packages missing in $rel"
		npm_missing=1
		continue
	fi
	command -v npm >/dev/null 2>&1 || die "npm not found (install nodejs and npm)"
	say "npm ci in $rel"
	(cd "$dir" && npm ci --no-audit --no-fund) || die "npm ci failed in $rel"
	touch "$dir/node_modules"
done < <(find "$ROOT" -name node_modules -prune -o -name .git -prune -o -name package-lock.json -print | sort)

if ((CHECK_ONLY)); then
	if ((${#missing[@]} || npm_missing)); then exit 1; fi
	say "everything is installed"
	exit 0
fi

# Final check: the tools the builds call must now run.
for t in clang wasm-ld llvm-ar wat2wasm wasm-objdump /usr/bin/rustc /usr/bin/cargo node npm gcc; do
	command -v "$t" >/dev/null 2>&1 || die "$t is still missing after installation"
done
[[ -d /usr/include/wasm32-wasi ]] || die "wasi-libc headers (/usr/include/wasm32-wasi) are missing"
[[ -d /usr/include/wasm32-wasi/c++ ]] || die "libc++ headers for wasm32 (/usr/include/wasm32-wasi/c++) are missing"
/usr/bin/rustc --print target-list | grep -x wasm32-wasi >/dev/null || die "/usr/bin/rustc has no wasm32-wasi target"
say "done"
