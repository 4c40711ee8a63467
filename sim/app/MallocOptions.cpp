// jemalloc reads its start-up options from this symbol (when the CLI is linked with it; see the top
// CMakeLists.txt). A plan of millions of ops is a few hundred MB of arrays that grow by a quarter:
// keeping freed pages mapped (decay -1) lets later growth reuse them. The process is short-lived,
// so nothing is given back. Transparent huge pages are left to the kernel's policy: forcing them
// (thp:always) made each first touch zero 2 MB, and cost more system time than it saved in TLB
// misses (175B/1,024 GPUs: 1.2 s against 0.25 s of system time, 4.8 s against 4.0 s wall, mean of
// three runs each; 530B/2,520 GPUs: 5.5-7.0 s against 3.2 s of system time).
#ifdef CLEARFOG_JEMALLOC
extern "C" {
extern const char* malloc_conf;
const char* malloc_conf = "dirty_decay_ms:-1,muzzy_decay_ms:-1";
}
#endif
