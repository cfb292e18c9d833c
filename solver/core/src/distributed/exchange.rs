//! Byte messages between all ranks: one `MPI_Alltoall` of the sizes, one
//! `MPI_Alltoallv` of the bytes. Every distributed exchange (ghosts, loads, wrenches,
//! migration, the gather to rank 0 and its answer) is one call of [`exchange`].

use mpi::datatype::{Partition, PartitionMut};
use mpi::traits::*;
use mpi::Count;

/// Sends `out[r]` to rank `r` (itself included) and returns what every rank sent here,
/// indexed by sender. `sent` grows by the bytes sent to other ranks. Fails (one line) on
/// a message over the 2 GiB an MPI count can describe.
pub fn exchange<C: Communicator>(
    comm: &C,
    out: &[Vec<u8>],
    sent: &mut u64,
) -> Result<Vec<Vec<u8>>, String> {
    let size = comm.size() as usize;
    let me = comm.rank() as usize;
    if out.len() != size {
        return Err(format!("{} messages for {size} ranks", out.len()));
    }
    let mut send_counts: Vec<Count> = Vec::with_capacity(size);
    for (r, m) in out.iter().enumerate() {
        let n = Count::try_from(m.len()).map_err(|_| {
            format!(
                "a message of {} bytes to rank {r} is over the MPI limit",
                m.len()
            )
        })?;
        send_counts.push(n);
        if r != me {
            *sent += m.len() as u64;
        }
    }
    let mut recv_counts: Vec<Count> = vec![0; size];
    comm.all_to_all_into(&send_counts[..], &mut recv_counts[..]);
    let displs = |counts: &[Count]| -> Result<Vec<Count>, String> {
        let mut d = Vec::with_capacity(counts.len());
        let mut at: Count = 0;
        for &c in counts {
            d.push(at);
            at = at
                .checked_add(c)
                .ok_or_else(|| "messages over the MPI limit of 2 GiB in one exchange".to_owned())?;
        }
        Ok(d)
    };
    let send_displs = displs(&send_counts)?;
    let recv_displs = displs(&recv_counts)?;
    // One byte more than sent and received: two empty vectors share one dangling
    // pointer, which OpenMPI refuses as `sendbuf == recvbuf` (MPI_ERR_ARG).
    let mut send: Vec<u8> = out.concat();
    send.push(0);
    let total: usize = recv_counts.iter().map(|&c| c as usize).sum();
    let mut recv = vec![0u8; total + 1];
    {
        let s = Partition::new(&send[..], &send_counts[..], &send_displs[..]);
        let mut r = PartitionMut::new(&mut recv[..], &recv_counts[..], &recv_displs[..]);
        comm.all_to_all_varcount_into(&s, &mut r);
    }
    Ok(recv_counts
        .iter()
        .zip(&recv_displs)
        .map(|(&c, &d)| recv[d as usize..(d + c) as usize].to_vec())
        .collect())
}
