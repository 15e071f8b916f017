// Runs a pipeline with the test step table (PNG through the core, no plugin
// host) in its own process, so tests can kill it mid-build.
//   engine_build_driver PIPELINE.yaml [REPORT.json]
#include "test_project.hpp"

#include <iostream>

int main(int argc, char** argv) {
    using namespace af::base;
    using namespace af::steps;
    using namespace af::load;
    using namespace af::engine;
    if (argc < 2) {
        std::cerr << "usage: engine_build_driver pipeline.yaml [report.json]\n";
        return 2;
    }
    StepTable steps = test::png_test_steps();
    try {
        Pipeline p = load_pipeline(argv[1], {}, steps);
        BuildOptions opt;
        opt.progress = 0;
        opt.threads = 2;
        if (argc > 2) opt.report_file = argv[2];
        opt.tool_identity = [](const std::string& n) { return n == "testpng" ? "testpng@1#0" : ""; };
        return run_build(p, steps, opt).exit_code();
    } catch (const ConfigError& e) {
        std::cerr << e.what() << "\n";
        return 2;
    }
}
