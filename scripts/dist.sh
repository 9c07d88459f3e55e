#!/usr/bin/env bash
# dist.sh [OUTDIR] - Prism's packages (make dist), into OUTDIR (default
# dist/): a Debian package prism_VERSION_ARCH.deb — the binary, the
# desktop entry, the icon, the AppStream metadata, and the man pages and
# bash/zsh/fish completions generated from the commands' own help
# (app/dist) — whose dependencies are the runtime libraries the binary is
# linked against (dpkg-shlibdeps) plus the OpenCL ICD loader it opens at
# run time, with an OpenCL driver recommended; and a tarball
# prism-VERSION-linux-ARCH.tar.gz of the same tree for other
# distributions. Needs go, dpkg-dev and the build's -dev packages
# (scripts/setup.sh installs them). Prints the packages' paths.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-dist}")
version=$(sed -n 's/^Version = "\(.*\)"$/\1/p' FyneApp.toml)
arch=$(dpkg --print-architecture)
goarch=$(go env GOARCH)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
usr=$root/usr
mkdir -p "$usr/bin" "$out"

go build -ldflags "-s -w" -o "$usr/bin/prism" .
go run ./app/dist/gendist "$usr"
gzip -9n "$usr"/share/man/man1/*.1
install -Dm644 assets/io.github.prismaudio.prism.desktop "$usr/share/applications/io.github.prismaudio.prism.desktop"
install -Dm644 assets/io.github.prismaudio.prism.metainfo.xml "$usr/share/metainfo/io.github.prismaudio.prism.metainfo.xml"
install -Dm644 assets/icon.png "$usr/share/icons/hicolor/512x512/apps/io.github.prismaudio.prism.png"
install -Dm644 README.md "$usr/share/doc/prism/README.md"

# the tarball: the tree as it would lie under /usr (or /usr/local, ~/.local)
tarname=prism-$version-linux-$goarch
mkdir -p "$work/tar"
cp -a "$usr" "$work/tar/$tarname"
cat > "$work/tar/$tarname/INSTALL" <<TXT
Prism $version for Linux ($goarch). Copy this tree under a prefix, e.g.

    sudo cp -r bin share /usr/local/        # or: cp -r bin share ~/.local/

It needs, from the distribution: PortAudio (libportaudio2), the GL and X
libraries, and the OpenCL ICD loader (libOpenCL.so.1) with a driver
(PoCL, Mesa, or the GPU vendor's) for the GPU engine; without a driver the
CPU engine runs. Run: prism (the window), prism help (the commands).
TXT
tar -C "$work/tar" --owner=0 --group=0 --sort=name -czf "$out/$tarname.tar.gz" "$tarname"

# the Debian package: dependencies from the libraries the binary links
mkdir -p "$work/debian"
printf 'Source: prism\n\nPackage: prism\nArchitecture: any\n' > "$work/debian/control"
shlibs=$(cd "$work" && dpkg-shlibdeps -O -eroot/usr/bin/prism 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
mkdir -p "$root/DEBIAN"
cat > "$root/DEBIAN/control" <<CTL
Package: prism
Version: $version
Architecture: $arch
Maintainer: The Prism developers <prism@prismaudio.github.io>
Installed-Size: $(du -sk "$usr" | cut -f1)
Depends: ${shlibs:+$shlibs, }ocl-icd-libopencl1
Recommends: pocl-opencl-icd | opencl-icd, libmpg123-0
Section: sound
Priority: optional
Homepage: https://github.com/prismaudio/prism
Description: real-time audio spectrum analyzer with GPU FFTs
 Prism shows the live spectrum, spectrogram, RTA and transfer function of
 an audio input, the signal generator or a file, with its FFTs in OpenCL
 kernels on the GPU and a CPU engine beside them that gives the same
 numbers; and command-line tools for files (spectrograms, spectra, band
 levels, loudness, distortion, transfer functions, room acoustics).
CTL
deb=$out/prism_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
echo "$out/$tarname.tar.gz"
