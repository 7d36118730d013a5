#!/bin/sh
# The system suite's command channel (tests/system/vm.py), on the tty given (the
# guest's second serial port, or its virtio console on arm64): each line is
# "SEQ BASE64-SCRIPT"; the script runs as root and its output and exit status
# go back between "@@BEGIN SEQ" and "@@END SEQ RC".
# The mode is set on the open port: a virtio console (hvc) is reset to cooked,
# echoing mode at its last close, which stty -F would be.
tty=${1:-/dev/ttyS1}
exec <"$tty" >"$tty" 2>&1
stty raw -echo
echo "@@READY"
while read -r seq script; do
	if printf '%s' "$script" | base64 -d >/run/agent-cmd 2>/dev/null; then
		sh /run/agent-cmd </dev/null >/run/agent-out 2>&1
		rc=$?
	else
		echo "the command line did not decode" >/run/agent-out
		rc=127
	fi
	echo "@@BEGIN $seq"
	cat /run/agent-out
	echo "@@END $seq $rc"
done
