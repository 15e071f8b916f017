// A shared library without the entry symbol: not a plugin.
extern "C" __attribute__((visibility("default"))) int some_other_function() { return 42; }
