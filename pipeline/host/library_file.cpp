#include "host/library_file.hpp"

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <vector>

namespace af::host {

namespace {

std::string at(uint64_t offset, const std::string& what) {
    return "damaged at byte " + std::to_string(offset) + ": " + what;
}

// [offset, offset + length) inside a file of `size` bytes, without overflow.
bool inside(uint64_t offset, uint64_t length, uint64_t size) { return offset <= size && length <= size - offset; }

} // namespace

std::string library_file_damage(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return "cannot open";
    in.seekg(0, std::ios::end);
    const uint64_t size = uint64_t(in.tellg());
    in.seekg(0);
    Elf64_Ehdr eh{};
    if (size < sizeof eh || !in.read(reinterpret_cast<char*>(&eh), sizeof eh))
        return at(size, "shorter than an ELF header (" + std::to_string(size) + " bytes)");
    if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) return at(0, "not an ELF file");
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
        return at(EI_CLASS, "not a 64-bit little-endian library");
#if defined(__x86_64__)
    if (eh.e_machine != EM_X86_64)
        return at(18, "built for another machine (e_machine " + std::to_string(eh.e_machine) + ")");
#endif
    if (eh.e_type != ET_DYN) return at(16, "not a shared library");
    if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0)
        return at(54, "no program headers the loader can read");
    const uint64_t ph_bytes = uint64_t(eh.e_phnum) * sizeof(Elf64_Phdr);
    if (!inside(eh.e_phoff, ph_bytes, size))
        return at(eh.e_phoff, "program headers past the end of the " + std::to_string(size) + "-byte file");
    std::vector<Elf64_Phdr> ph(eh.e_phnum);
    in.seekg(std::streamoff(eh.e_phoff));
    if (!in.read(reinterpret_cast<char*>(ph.data()), std::streamsize(ph_bytes))) return at(eh.e_phoff, "unreadable");
    for (const Elf64_Phdr& p : ph)
        if (p.p_type != PT_NULL && !inside(p.p_offset, p.p_filesz, size))
            return at(p.p_offset, "a segment of " + std::to_string(p.p_filesz) + " bytes runs past the end of the " +
                                      std::to_string(size) + "-byte file (truncated?)");
    // The loader does not read section headers, but they come last: a file cut short loses them first.
    if (eh.e_shnum && !inside(eh.e_shoff, uint64_t(eh.e_shnum) * eh.e_shentsize, size))
        return at(eh.e_shoff,
                  "section headers past the end of the " + std::to_string(size) + "-byte file (truncated?)");
    return "";
}

} // namespace af::host
