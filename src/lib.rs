//! The registry of everything the `dst` binary knows: the built-in models
//! and the released crates nobody here wrote (tikv's raft, openraft,
//! omnipaxos, async-raft) and two examples of a user's own tokio service
//! (one of them talking gRPC with tonic), each registered through the same
//! public path a user's own binary would use.

/// The built-in models, the releases of raft-rs, openraft, omnipaxos and
/// async-raft, and the two tokio services, with their scenarios.
pub fn registry() -> sim::Registry {
    let mut registry = models::registry();
    raft_rs_example::register(&mut registry);
    openraft_example::register(&mut registry);
    omnipaxos_example::register(&mut registry);
    tokio_kv_example::register(&mut registry);
    async_raft_example::register(&mut registry);
    grpc_register_example::register(&mut registry);
    registry
}
