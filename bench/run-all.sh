#!/usr/bin/env bash
# bench/run-all.sh runs every benchmark that docs/benchmarks.md reports, one
# after another in one session, and keeps each one's output in a folder:
#
#   bash bench/run-all.sh [OUTDIR]      # default: a new folder under /tmp
#   DRYRUN=1 bash bench/run-all.sh      # print the commands only
#
# Each step prints its command and the load average before and after it, so a
# figure taken while the machine was busy can be told apart. Every benchmark
# measures its own baseline in the same process (ratios side by side); read
# the ratios and medians, not single timings. Takes about 10 minutes on 2
# cores. Needs vsftpd for the FTP step (skipped when it is not installed).
set -u
cd "$(dirname "$0")/.."
out=${1:-$(mktemp -d /tmp/soapwire-bench.XXXXXX)}
mkdir -p "$out"
bin=$(mktemp -d /tmp/soapwire-bench-bin.XXXXXX)
trap 'rm -rf "$bin"' EXIT

load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime; }

# step NAME COMMAND...: runs COMMAND with bash, its output in OUTDIR/NAME.txt.
step() {
	local name=$1
	shift
	if [ -n "${DRYRUN:-}" ]; then
		printf '== %s\n%s\n' "$name" "$*"
		return
	fi
	local f="$out/$name.txt"
	{
		echo "# $name"
		echo "# command: $*"
		echo "# start: $(date -u +%FT%TZ), load average $(load)"
	} >"$f"
	echo "== $name ($(date -u +%T), load $(load))"
	bash -c "$*" >>"$f" 2>&1
	local rc=$?
	echo "# end: $(date -u +%FT%TZ), load average $(load), exit $rc" >>"$f"
	[ $rc -eq 0 ] || echo "   $name failed (exit $rc): see $f"
}

{
	echo "date: $(date -u +%FT%TZ)"
	echo "commit: $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo ' (uncommitted changes)')"
	echo "go: $(go version)"
	echo "kernel: $(uname -sr)"
	echo "cpus: $(nproc) x $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ //')"
	echo "load average: $(load)"
} | tee "$out/machine.txt"

# Core (issues 2 and 5).
step core-tokenizer "go test -run XXX -bench 'BenchmarkTokenizer|BenchmarkRatioTokenizer' -benchmem -count 5 ./core/"
step core-node "go test -run XXX -bench 'BenchmarkNode|BenchmarkRatioNode|BenchmarkDecode|BenchmarkEnvelope|BenchmarkRatioEnvelope' -benchmem -count 5 ./core/"
step core-stream "go test -run TestStreamFlatMemory -v -count 1 ./core/"
step stream1g "go run ./bench/stream1g -size 1GiB -max-rss 64MiB"

# HTTP (issues 4 and 5).
step httpload "go run ./bench/httpload -rounds 6 -duration 3s"
step http-server "go test -run XXX -bench BenchmarkServer -benchmem -count 5 ./bindings/http/"

# Generated code (issue 21): the generated echo server beside net/http, the
# handlers' allocations, generated encode/decode against the reflective codec
# and encoding/xml.
step httpload-gen "go run ./bench/httpload -servers soapwire-gen,soapwire-rpc,soapwire -rounds 10 -duration 3s"
step httpload-handler "go test ./bench/httpload -run '^\$' -bench 'BenchmarkHandler\$' -benchmem -benchtime 20000x"
step gencodec "go test ./bench/gencodec -run '^\$' -bench 'BenchmarkCodec\$' -benchmem -count 3 &&
  go test ./bench/gencodec -run '^\$' -bench BenchmarkRatioCodec -count 5"

# Attachments over HTTP (issue 25): 1 GiB MTOM, flat memory, against plain net/http.
step attach1g "go run ./bench/attach1g -size 1GiB -rounds 3 -max-rss 64MiB"
# Attachments through a file drop (issue 25): 1 GiB as one MIME file in a local folder.
step attach1g-file "go run ./bench/attach1g -transport file -size 1GiB -rounds 3 -max-rss 64MiB"
# Attachments in core (issue 25): a 10 MiB part against inline base64, alternating pairs.
step core-attachments "go test -run XXX -bench 'BenchmarkAttachment|BenchmarkRatioAttachment' -benchmem -benchtime 5x -count 5 ./core/ &&
  go test -run XXX -bench BenchmarkRatioAttachment -benchmem -benchtime 15x -count 3 ./core/"

# SOAP encoding and RPC (issue 3): five interleaved rounds.
step soapenc "go test -c -o $bin/soapenc.test ./core/soapenc && go test -c -o $bin/rpc.test ./core/rpc &&
  for i in 1 2 3 4 5; do $bin/soapenc.test -test.run '^\$' -test.bench . -test.benchmem -test.cpu 1 -test.count 1;
  (cd core/rpc && $bin/rpc.test -test.run '^\$' -test.bench ServiceEcho -test.benchmem -test.cpu 1 -test.count 1); done"

# Documents (issue 6).
step documents "go test ./document/ -run XXX -bench 'OneWay10k' -benchtime 5x -count 7 -benchmem"
step documents-prolog "go test ./document/ -run XXX -bench NewBody -benchmem -count 5"

# FTP (issue 8): pauses between rounds so TIME_WAIT sockets do not pile up.
ftpbench="\$bin/ftp.test -test.run XXX -test.bench 'BenchmarkDrop\$' -test.benchtime 1000x"
if command -v vsftpd >/dev/null 2>&1 || [ -x /usr/sbin/vsftpd ]; then
	ftpbench="$ftpbench; \$bin/ftp.test -test.run XXX -test.bench 'BenchmarkDropVsftpd\$' -test.benchtime 1000x"
fi
step ftp "bin=$bin; go test -c -o \$bin/ftp.test ./bindings/ftp && cd bindings/ftp &&
  for i in 1 2 3 4 5; do $ftpbench; sleep 10; done"

# SFTP (issue 23): the whole drop against raw pkg/sftp uploads, embedded server and OpenSSH.
step sftp "bin=$bin; go test -c -o \$bin/sftp.test ./bindings/sftp && cd bindings/sftp &&
  for i in 1 2 3 4 5; do \$bin/sftp.test -test.run XXX -test.bench 'BenchmarkDrop\$|BenchmarkDropOpenSSH\$' -test.benchtime 1000x; done"
step sftp1g "go run ./bench/sftp1g -size 1GiB -max-rss 64MiB"

# Local folders (issue 23): the whole drop against raw write+fsync+rename.
step file "bin=$bin; go test -c -o \$bin/file.test ./bindings/file && cd bindings/file &&
  for i in 1 2 3 4 5; do \$bin/file.test -test.run XXX -test.bench 'BenchmarkDrop\$' -test.benchtime 1000x; done"

# NATS (issue 9).
step nats-ratio "go test -run XXX -bench BenchmarkRequestReplyRatio -benchtime 10x -count 5 ./bindings/nats/"
step nats-seq "go test -run XXX -bench 'BenchmarkRequestReply\$' -benchtime 2s -count 5 -benchmem ./bindings/nats/"
step nats-codec "go test -run XXX -bench BenchmarkCodec -benchmem -count 5 ./bindings/nats/"
step nats-jetstream "go test -run XXX -bench BenchmarkJetStream -benchtime 5000x -count 5 ./bindings/nats/"

# SMTP (issue 7): ten runs of the compiled test binary.
step smtp "go test -c -o $bin/smtp.test ./bindings/smtp && cd bindings/smtp &&
  for i in 1 2 3 4 5 6 7 8 9 10; do $bin/smtp.test -test.run XXX -test.bench BenchmarkMail -test.benchtime 3000x; done"

# IMAP intake (issue 24): five runs, each with both paths on both servers
# (Dovecot needs root and dovecot-imapd; its sub-benchmarks fail without).
step imap "for i in 1 2 3 4 5; do go test -run '^\$' -bench BenchmarkIntake -benchtime 300x -count 1 ./bindings/imap/; done"

# The main example on a fresh clone: empty module and build caches, so it
# downloads the modules and compiles everything (issue 10: under a minute).
step crosstransport-cold "c=\$(mktemp -d) && GOCACHE=\$c/build GOMODCACHE=\$c/mod GOFLAGS=-modcacherw /usr/bin/time -f '%e s wall, %U s user, %S s system' go run ./examples/crosstransport; rc=\$?; rm -rf \$c; exit \$rc"

# Contracts (issue 20): loading the largest WSDL of the corpus, and zeep on
# the same file (skipped when the corpus is not beside the repository).
step wsdl-load "go test -run XXX -bench BenchmarkLoadLargest -benchtime 20x -count 5 ./core/wsdl/"
step wsdl-call-ratio "go test ./core/wsdl -run '^\$' -bench EchoCallRatio -count 5 -benchtime 300x"
step wsdl-call "go test ./core/wsdl -run '^\$' -bench 'EchoCall\$' -benchmem"
if [ -d ../shared/wsdl-corpus ]; then
	step wsdl-load-zeep "/usr/bin/python3 core/wsdl/testdata/zeep/load_time.py ../shared/wsdl-corpus/cases/virtualbox-vboxweb/main.wsdl 7"
fi

# Examples and the CLI.
step unixsock "go test -run XXX -bench . -benchmem -count 5 ./examples/custom-binding/unixsock/"
step cli "go test -run XXX -bench . -benchmem -count 5 ./cmd/soapwire/"

echo "done: $out (load $(load))"
