// The C-ABI functions of the "xtf" and "vtf" containers (plugin.cpp declares
// the containers and their options).
#pragma once

#include "assetforge/plugin_abi.h"

#include <cstdint>

namespace af::xtf {

int32_t probe_xtf(const uint8_t* head, uint64_t n, const char* path);
af_status read_xtf_container(const af_host* host, const af_input* in, const af_options* options, af_texture* out,
                             af_error* error);
af_status write_xtf_container(const af_host* host, const af_texture* tex, const af_options* options, af_sink* out,
                              af_error* error);
af_status info_xtf_container(const af_host* host, const af_input* in, const af_options* options, af_info_text* out,
                             af_error* error);

int32_t probe_vtf(const uint8_t* head, uint64_t n, const char* path);
af_status read_vtf_container(const af_host* host, const af_input* in, const af_options* options, af_texture* out,
                             af_error* error);
af_status write_vtf_container(const af_host* host, const af_texture* tex, const af_options* options, af_sink* out,
                              af_error* error);
af_status info_vtf_container(const af_host* host, const af_input* in, const af_options* options, af_info_text* out,
                             af_error* error);

} // namespace af::xtf
