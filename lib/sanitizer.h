// Whether this build runs under AddressSanitizer: GCC says so with
// __SANITIZE_ADDRESS__, clang with __has_feature. Defines CONVO_ASAN when it does.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define CONVO_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CONVO_ASAN 1
#endif
#endif
