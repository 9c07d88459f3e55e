#!/usr/bin/env bash
# setup.sh - everything Prism needs on a fresh Debian/Ubuntu machine:
# the Debian packages (only those missing; apt as root, or through sudo) and
# a Go toolchain new enough for go.mod (fetched from the Go module proxy,
# the one place Go is served from here, when the machine's go is missing or
# too old). Idempotent. Prints nothing but progress on stderr.
set -euo pipefail

GO_VERSION=${GO_VERSION:-1.26.8}
GO_DIR=${PRISM_GO_DIR:-$HOME/.cache/prism-go/go$GO_VERSION}

# Packages (shared/ENVIRONMENT.md): OpenCL with PoCL (a CPU OpenCL device)
# for the kernels and their tests; PortAudio, PulseAudio and sox for audio;
# Xvfb and GL/X development files for the Fyne UI; unzip and curl for the Go
# bootstrap; python3-scipy as an independent reference in tests; libmpg123
# (loaded at run time) for MP3 decoded to float, and lame, mpg123 and flac as
# reference encoders and decoders in the audio tests; dpkg-dev (dpkg-shlibdeps),
# desktop-file-utils, appstream and man-db to build and check the packages
# (make dist); slurm-wlm and munge for the one-node Slurm cluster the
# archive tests start, netcdf-bin (ncdump) and python3-netcdf4 (with
# numpy) to read back the NetCDF files Prism writes, python3-yaml to check
# the Kubernetes manifest the archive docs show.
PACKAGES=(
  gcc pkg-config make curl ca-certificates unzip git
  ocl-icd-opencl-dev ocl-icd-libopencl1 opencl-headers pocl-opencl-icd clinfo
  portaudio19-dev pulseaudio pulseaudio-utils alsa-utils libasound2-plugins sox
  libmpg123-0 lame mpg123 flac
  libgl1-mesa-dev xorg-dev xvfb xauth x11-apps xdotool imagemagick
  dpkg-dev desktop-file-utils appstream man-db
  slurm-wlm munge netcdf-bin python3-netcdf4 python3-numpy python3-yaml
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    sudo=(sudo)
  fi
  echo "setup: installing ${missing[*]}" >&2
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Go: use the machine's if it is at least 1.26, else a toolchain from the proxy.
go_ok() {
  local v
  v=$("$1" env GOVERSION 2>/dev/null) || return 1
  v=${v#go}
  [[ $(printf '%s\n1.26\n' "${v%%[a-z]*}" | sort -V | head -1) == 1.26 ]]
}
if ! { command -v go >/dev/null && go_ok go; } && ! go_ok "$GO_DIR/bin/go"; then
  echo "setup: fetching Go $GO_VERSION from the module proxy into $GO_DIR" >&2
  tmp=$(mktemp -d)
  curl -fsSL -o "$tmp/go.zip" "https://proxy.golang.org/golang.org/toolchain/@v/v0.0.1-go$GO_VERSION.linux-amd64.zip"
  unzip -q "$tmp/go.zip" -d "$tmp"
  mkdir -p "$(dirname "$GO_DIR")"
  rm -rf "$GO_DIR"
  mv "$tmp/golang.org/toolchain@v0.0.1-go$GO_VERSION.linux-amd64" "$GO_DIR"
  chmod -R u+w "$GO_DIR"
  chmod +x "$GO_DIR"/bin/* "$GO_DIR"/pkg/tool/*/*
  rm -rf "$tmp"
fi
