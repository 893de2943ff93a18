#!/usr/bin/env bash
# install-deps.sh - install the Debian packages uiscope's build, tests, demo and benchmarks need.
#
# Installs only what is missing: when everything is present it makes one dpkg-query call and
# returns at once (no apt-get update). Uses sudo when not root. Progress goes to stderr.
# Also checks that Go >= 1.26 is on PATH (it is not installed from Debian: Debian's is too old).
#
#   scripts/install-deps.sh          everything (make deps, make test): install what is missing, then check go
#   scripts/install-deps.sh --demo   only what `uiscope demo` needs (make demo): the sandbox desktop
#                                    and gtk3-widget-factory
#   UISCOPE_SKIP_GO_CHECK=1 ...      skip the go check (e.g. a machine that only runs a built demo)
set -euo pipefail

# What `uiscope demo` runs: the sandbox desktop (Xvfb, a session bus, the AT-SPI bus and
# registry, openbox) and its default sample app, gtk3-widget-factory.
DEMO_PACKAGES=(
  xvfb dbus at-spi2-core libatk-adaptor openbox
  gtk-3-examples
)

# Everything else the tests and benchmarks need.
TEST_PACKAGES=(
  # the rest of the virtual desktop's tools: cookie auth, dbus-launch, gsettings/gdbus, xprop
  xauth dbus-x11 libglib2.0-bin x11-utils
  # setsid/flock (util-linux), ps/pgrep (procps), /usr/bin/time for benchmarks
  util-linux procps time
  # test applications and fixtures; python3-gi and gir1.2-gtk-3.0 also run
  # the consent dialog of uiscope mcp --consent prompt
  gtk-4-examples python3-gi gir1.2-gtk-3.0 gir1.2-gtk-4.0
  gir1.2-atspi-2.0 python3-pyatspi python3-pyqt5 python3-tk
  # real applications the task tests drive, and xdotool to act as "the user"
  mousepad firefox-esr xdotool
  # apps at scale: browsers and an office suite (GTK 3 VCL, so AT-SPI sees it)
  chromium libreoffice-calc libreoffice-writer libreoffice-gtk3
  # GTK 2 (GIMP 2.10): accessible only with the gail and atk-bridge modules
  gimp libgail-common
  # the task matrix: the editors, viewers and tools people automate, across
  # GTK 3 (gedit, System Monitor, Evince), GTK 4 (GNOME Text Editor), Qt 5 /
  # KDE (KWrite, SpeedCrunch) and Java Swing through the ATK wrapper
  gedit gnome-text-editor gnome-system-monitor evince kwrite speedcrunch
  openjdk-17-jdk-headless openjdk-17-jre libatk-wrapper-java-jni
  # apps nobody named, to prove the mechanisms beyond those that found the
  # defects: GNOME Calculator (GTK 4, libadwaita), zenity (GTK 3 dialogs
  # from a script), xterm (Xaw: no accessibility, visual sessions)
  gnome-calculator zenity xterm
  # the sway sandbox (uiscope sandbox --desktop sway): headless sway, swaymsg
  # for the tests' own reading of its tree, and Qt 5's Wayland platform;
  # Xwayland for --xwayland (X-only apps as sway windows), and xhost, with
  # which sway lets root's clients into its Xwayland
  sway qtwayland5 xwayland x11-xserver-utils
  # grim: a screencopy client outside uiscope, the reference its captures on
  # sway are compared with
  grim
)

case "${1:-}" in
  "") PACKAGES=("${DEMO_PACKAGES[@]}" "${TEST_PACKAGES[@]}") ;;
  --demo) PACKAGES=("${DEMO_PACKAGES[@]}") ;;
  *) printf 'usage: %s [--demo]\n' "$0" >&2; exit 2 ;;
esac
GO_MIN_MAJOR=1
GO_MIN_MINOR=26

log() { printf 'install-deps: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

missing_packages() {
  # One dpkg-query for all packages; unknown ones are reported on stderr and simply not listed.
  local installed
  installed=$(dpkg-query -W -f='${Package} ${Status}\n' "${PACKAGES[@]}" 2>/dev/null || true)
  local p
  for p in "${PACKAGES[@]}"; do
    grep -qE "^${p//./\\.}(:[a-z0-9]+)? install ok installed$" <<<"$installed" || echo "$p"
  done
}

install_packages() {
  command -v dpkg-query >/dev/null 2>&1 || die "dpkg-query not found: this script needs a Debian/Ubuntu system"
  local missing
  mapfile -t missing < <(missing_packages)
  if ((${#missing[@]} == 0)); then
    log "all ${#PACKAGES[@]} Debian packages already installed"
    return 0
  fi
  log "missing packages: ${missing[*]}"

  local -a SUDO=()
  if ((EUID != 0)); then
    command -v sudo >/dev/null 2>&1 || die "not root and sudo is not available; install as root: apt-get install ${missing[*]}"
    SUDO=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  log "running apt-get update"
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 || die "apt-get update failed"
  log "installing ${#missing[@]} package(s)"
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "${missing[@]}" >&2 || die "apt-get install failed"

  mapfile -t missing < <(missing_packages)
  ((${#missing[@]} == 0)) || die "still missing after install: ${missing[*]}"
  log "packages installed"
}

check_go() {
  if [[ ${UISCOPE_SKIP_GO_CHECK:-} == 1 ]]; then log "skipping go check"; return 0; fi
  if ! command -v go >/dev/null 2>&1; then
    local hint=""
    [[ -x /usr/local/go/bin/go ]] && hint=" (found /usr/local/go/bin/go: add /usr/local/go/bin to PATH)"
    die "go not found on PATH${hint}; uiscope needs Go >= ${GO_MIN_MAJOR}.${GO_MIN_MINOR}"
  fi
  local v major minor
  v=$(go env GOVERSION 2>/dev/null || true)          # e.g. go1.26.8, go1.26rc1
  [[ $v =~ ^go([0-9]+)\.([0-9]+) ]] || die "cannot parse go version '${v:-?}' from $(command -v go)"
  major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]}
  if ((major < GO_MIN_MAJOR || (major == GO_MIN_MAJOR && minor < GO_MIN_MINOR))); then
    die "$(command -v go) is $v; uiscope needs Go >= ${GO_MIN_MAJOR}.${GO_MIN_MINOR}"
  fi
  log "go ok: $v ($(command -v go))"
}

install_packages
check_go
