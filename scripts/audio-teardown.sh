#!/usr/bin/env bash
# audio-teardown.sh - undo audio-setup.sh. Idempotent.
set -uo pipefail
MARK='# written by audio-setup.sh'

# 1. stop the daemon (its clients, e.g. a paplay tone, get disconnected and exit)
if pulseaudio --check 2>/dev/null; then
  pulseaudio --kill 2>/dev/null || true
  for _ in $(seq 50); do pulseaudio --check 2>/dev/null || break; sleep 0.2; done
  if pulseaudio --check 2>/dev/null; then echo "audio-teardown: PulseAudio still running" >&2; exit 1; fi
fi

# 2. our ALSA config only
if [[ -f "$HOME/.asoundrc" ]] && grep -qF "$MARK" "$HOME/.asoundrc"; then rm -f "$HOME/.asoundrc"; fi

# 3. runtime dir of the per-user daemon (socket, pid file); state files stay.
#    Note: any later libpulse client (pactl, pulseaudio --check, PortAudio via
#    ALSA's pulse hook) re-creates an empty one: harmless.
for l in "$HOME"/.config/pulse/*-runtime; do
  [[ -L "$l" ]] || continue
  d=$(readlink "$l"); rm -f "$l"
  case "$(basename "$d")" in pulse-*) rm -rf "$d" ;; esac
done
echo "audio-teardown: ok"
