# Debian packages, in two sets: what building and running the tool needs (scripts/setup.sh), and what only the
# tests need (scripts/test.sh) — a modder's first run does not wait for nginx, Slurm or ImageMagick.
# Sourced; `ensure_packages NAME…` installs the missing ones (as root, idempotent).

build_packages=(
  cmake g++ ninja-build pkg-config              # toolchain
  libboost-dev libboost-program-options-dev libboost-filesystem-dev  # DLL loading, CLI, paths
  libtbb-dev                                    # parallel execution
  libyaml-cpp-dev                               # pipeline.yaml
  libpng-dev zlib1g-dev                         # PNG reading (libpng), zip streams
  libdeflate-dev                                # PNG writing: fast deflate and CRC-32
  libopenexr-dev                                # OpenEXR: the HDR edit format (float and BC6H textures)
  nlohmann-json3-dev                            # --json output, reports, manifests
  libsqlite3-dev                                # incremental build state
  libxxhash-dev                                 # content hashes
  libimagequant-dev                             # P8 palettes
  libzip-dev                                    # mod packages
  libzstd-dev                                   # Echo VR package sets (plugins/evr): manifest and frames are zstd
  libssl-dev                                    # SHA-256: remote cache digests, XTF fixture blocks and EVR extracts
  libseccomp-dev                                # plugin workers: the seccomp-bpf sandbox (no file opening, sockets, exec)
  libcurl4-openssl-dev                          # remote cache: HTTP(S) client
  libprotobuf-dev protobuf-compiler             # remote cache: REAPI ActionResult entries
  python3                                       # man page and bash completion from --help; the example lists its zip
)

test_packages=(
  catch2                                        # unit tests
  python3-pil python3-numpy                     # independent decoders the tests compare against
  python3-zstandard                             # the independent Echo VR set generator and reader (plugins/evr/tests/tools)
  imagemagick libnvtt-bin                       # more independent readers for cross-checks
  openimageio-tools                             # oiiotool: an independent OpenEXR reader (Debian's ImageMagick 6 has no EXR delegate)
  nginx                                         # a real HTTP cache server (its WebDAV module takes PUT)
  slurmctld slurmd slurm-client munge           # a one-node Slurm cluster runs the job-array recipe
  groff-base                                    # renders the generated man page
)

fuzz_packages=(
  clang libclang-rt-14-dev                      # libFuzzer + ASan/UBSan for fuzz/run.sh
)

ensure_packages() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
}
