#!/usr/bin/env bash
# Installs AssetForge's build and test dependencies from Debian packages (idempotent)
# and builds everything into ./build. Run as root on Debian 12.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake g++ ninja-build pkg-config              # toolchain
  clang libclang-rt-14-dev                      # fuzz harnesses (libFuzzer + ASan/UBSan), built and smoke-run by CI
  libboost-dev libboost-program-options-dev libboost-filesystem-dev  # DLL loading, CLI, paths
  libtbb-dev                                    # parallel execution
  libyaml-cpp-dev                               # pipeline.yaml
  libpng-dev zlib1g-dev                         # PNG reading (libpng), zip streams
  libdeflate-dev                                # PNG writing: fast deflate and CRC-32
  nlohmann-json3-dev                            # --json output, reports, manifests
  libsqlite3-dev                                # incremental build state
  libxxhash-dev                                 # content hashes
  libimagequant-dev                             # P8 palettes
  libzip-dev                                    # mod packages
  libzstd-dev                                   # Echo VR package sets (plugins/evr): manifest and frames are zstd
  libssl-dev                                    # SHA-256: remote cache digests, XTF fixture blocks and EVR extracts in tests
  libseccomp-dev                                # plugin workers: the seccomp-bpf sandbox (no file opening, sockets, exec)
  libcurl4-openssl-dev                          # remote cache: HTTP(S) client
  libprotobuf-dev protobuf-compiler             # remote cache: REAPI ActionResult entries (protoc also decodes in tests)
  catch2                                        # unit tests
  python3 python3-pil python3-numpy             # independent decoders the tests compare against
  python3-zstandard                             # tests: the independent Echo VR set generator and reader (plugins/evr/tests/tools)
  imagemagick libnvtt-bin                       # more independent readers for cross-checks
  nginx                                         # tests: a real HTTP cache server (its WebDAV module takes PUT)
  slurmctld slurmd slurm-client munge           # tests: a one-node Slurm cluster runs the job-array recipe
  groff-base                                    # tests: renders the generated man page
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DAF_WERROR=ON ${AF_CMAKE_ARGS:-} > /dev/null
cmake --build build -j "${AF_JOBS:-2}"
