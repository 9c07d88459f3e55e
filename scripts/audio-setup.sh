#!/usr/bin/env bash
# audio-setup.sh - virtual audio loop for a headless root shell (no sound card).
# PulseAudio (per-user daemon, run as root) + null sink $SINK; ALSA "default"
# -> PulseAudio; PulseAudio default source = $SINK.monitor. Anything played
# into $SINK is what PortAudio's default input device captures.
# Idempotent: safe to run again at any time.
set -euo pipefail
SINK=${SINK:-probe_sink}
RATE=${RATE:-48000}
MARK='# written by audio-setup.sh'

# 1. packages (only when missing; a new machine has none of them)
need=()
for p in pulseaudio pulseaudio-utils alsa-utils libasound2-plugins sox portaudio19-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || need+=("$p")
done
if ((${#need[@]})); then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

# 2. PulseAudio daemon (root: prints "not intended to be run as root", works anyway)
if [[ -n "${XDG_RUNTIME_DIR:-}" ]]; then mkdir -p -m 700 "$XDG_RUNTIME_DIR"; fi
if ! pactl info >/dev/null 2>&1; then
  pulseaudio --daemonize=yes --exit-idle-time=-1 \
             --log-target=syslog --log-level=error 2>/dev/null || true
  for _ in $(seq 50); do pactl info >/dev/null 2>&1 && break; sleep 0.2; done
  pactl info >/dev/null 2>&1 || { echo "audio-setup: PulseAudio did not start" >&2; exit 1; }
fi

# 3. null sink + defaults
# (pactl output is captured first: "pactl | grep -q" + pipefail can misfire on SIGPIPE)
sinks=$(pactl list short sinks)
if ! awk '{print $2}' <<<"$sinks" | grep -qx "$SINK"; then
  pactl load-module module-null-sink sink_name="$SINK" rate="$RATE" channels=2 \
        sink_properties=device.description="$SINK" >/dev/null
fi
pactl set-default-sink "$SINK"
pactl set-default-source "$SINK.monitor"

# 4. keep-alive: a silent low-latency stream keeps the null sink at ~5 ms
#    latency. Without it an idle null sink renders in ~2 s blocks and a new
#    capture stream (PortAudio/arecord) gets its first data only after ~1-2 s.
inputs=$(pactl list sink-inputs)
if ! grep -q 'application.name = "audio-keepalive"' <<<"$inputs"; then
  setsid -f pacat --playback --device="$SINK" --latency-msec=20 --raw --rate="$RATE" \
        --channels=2 --format=s16le --client-name=audio-keepalive </dev/zero >/dev/null 2>&1
fi
for _ in $(seq 40); do   # wait (<= 4 s) until the sink's current latency is below 100 ms
  lat=$(pactl list sinks | awk -v s="$SINK" '$1=="Name:"{n=$2} n==s && $1=="Latency:"{print $2; exit}')
  [[ -n "$lat" && "$lat" -lt 100000 ]] && break; sleep 0.1
done

# 5. ALSA default -> PulseAudio (Debian's 99-pulse.conf hook does this already
#    while the daemon runs; the explicit file makes it unconditional)
if [[ ! -e "$HOME/.asoundrc" ]] || grep -qF "$MARK" "$HOME/.asoundrc"; then
  printf '%s\npcm.!default { type pulse }\nctl.!default { type pulse }\n' "$MARK" > "$HOME/.asoundrc"
fi

echo "audio-setup: ok: server $(pactl info | sed -n 's/^Server String: //p'), default source $(pactl get-default-source)"
