// The subdirectory consumer's own library, deliberately named realify_simd:
// realify's targets must leave the name to the project.
int consumer_own_library() { return 42; }
