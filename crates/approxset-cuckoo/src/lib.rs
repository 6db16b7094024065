//! The cuckoo filter of approxset (in progress).
