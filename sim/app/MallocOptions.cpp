// jemalloc reads its start-up options from this symbol (when the CLI is linked with it; see the top
// CMakeLists.txt). A plan of millions of ops is a few hundred MB of arrays that grow by doubling:
// on transparent huge pages they fault in 512 times fewer pages, and keeping freed pages mapped
// (decay -1) lets the doubling reuse them. The process is short-lived, so nothing is given back.
#ifdef CLEARFOG_JEMALLOC
extern "C" {
extern const char* malloc_conf;
const char* malloc_conf = "thp:always,metadata_thp:auto,dirty_decay_ms:-1,muzzy_decay_ms:-1";
}
#endif
