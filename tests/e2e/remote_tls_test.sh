#!/usr/bin/env bash
# HTTPS: serve with a certificate, publish and mount through it with the CA
# given by the config file or the environment; an untrusted certificate is
# a clear, immediate error, and plain HTTP to the TLS port gets nothing.
source "$(dirname "$0")/lib.sh"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost \
  -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
  -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null || fail "openssl"
echo "tok-tls-0123456789abcdef  ci  admin:*" >"$WORK/tokens"
start_server registry "$WORK/server" --listen 127.0.0.1:0 --tokens "$WORK/tokens" \
  --tls-cert "$WORK/cert.pem" --tls-key "$WORK/key.pem"
expect_eq "served over https" "$URL" "https://127.0.0.1:$PORT"
expect_eq "healthz over https" "$(curl -s --cacert "$WORK/cert.pem" "$URL/healthz")" "ok"
expect_eq "plain http to the TLS port" \
  "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$PORT/healthz")" "000"
expect_contains "log names https" "$(cat "$WORK/registry.log")" "at https://"

mkdir -p "$WORK/home/.config/sealvol"
cat >"$WORK/home/.config/sealvol/config.toml" <<CFG
remote = "secure"
[remotes.secure]
url = "$URL"
token = "tok-tls-0123456789abcdef"
ca_file = "$WORK/cert.pem"
CFG
"$GENMODEL" "$WORK/model" --size 8000000 --seed 4 >/dev/null
expect_exit 0 env HOME="$WORK/home" "$SEALVOL" publish "$WORK/model" acme/m:v1 -q
mkdir -p "$WORK/mnt"
expect_exit 0 env HOME="$WORK/home" SEALVOL_CACHE_DIR="$WORK/cache" \
  "$SEALVOL" mount acme/m:v1 "$WORK/mnt" -q
diff -r "$WORK/model" "$WORK/mnt" >/dev/null && pass || fail "mounted bytes over https"
sv umount "$WORK/mnt" -q

# Without the CA: refused at once (no 15 s of retries), naming the fix.
start=$(date +%s)
expect_exit 6 env SEALVOL_TOKEN=tok-tls-0123456789abcdef "$SEALVOL" --remote "$URL" versions acme/m
expect_contains "untrusted certificate" "$ERR" "SEALVOL_CA_FILE"
[ $(( $(date +%s) - start )) -lt 5 ] && pass || fail "an untrusted certificate was retried"
expect_exit 0 env SEALVOL_TOKEN=tok-tls-0123456789abcdef SEALVOL_CA_FILE="$WORK/cert.pem" \
  "$SEALVOL" --remote "$URL" verify acme/m:v1

finish
