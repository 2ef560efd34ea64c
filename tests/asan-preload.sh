# asan-preload.sh — sourced by the tests that run the binding in Python: an
# AddressSanitizer build's library needs the ASan runtime first in the
# process, so it is preloaded (into the Dask workers too), leak reports off
# (Python never frees its own objects at exit).
case "${JH_SAN_CFLAGS:-}" in
*sanitize=address*)
	lib="$(dirname "$JINGHUA")/.libs/libjinghua.so.0"
	asan=$(ldd "$lib" 2>/dev/null | awk '/libasan/ {print $3}')
	LD_PRELOAD=$asan; ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	export LD_PRELOAD ASAN_OPTIONS ;;
esac
