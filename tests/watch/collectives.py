# mpi4py's collectives on MPI_COMM_WORLD and on split communicators, for
# tests/watch (a program nobody here wrote the library of: mpi4py calls
# Open MPI's C functions, after MPI_Init_thread). Buffers are array.array
# (no numpy needed); the lowercase calls pickle Python objects.
from array import array

from mpi4py import MPI

world = MPI.COMM_WORLD
rank, size = world.Get_rank(), world.Get_size()
out = []

world.Barrier()
x = array("d", [rank + 1.0] * 4)
y = array("d", [0.0] * 4)
world.Allreduce(x, y, op=MPI.SUM)
out.append("allreduce %s" % list(y))
b = array("i", [42, 7] if rank == 0 else [0, 0])
world.Bcast(b, root=0)
out.append("bcast %s" % list(b))
r = array("d", [0.0])
world.Reduce(array("d", [rank * 2.0]), r, op=MPI.MAX, root=0)
if rank == 0:
    out.append("reduce max %s" % list(r))
g = array("i", [0] * size)
world.Allgather(array("i", [rank * rank]), g)
out.append("allgather %s" % list(g))
a = array("i", [0] * size)
world.Alltoall(array("i", [rank * 10 + j for j in range(size)]), a)
out.append("alltoall %s" % list(a))
s = array("i", [0])
world.Scan(array("i", [rank + 1]), s, op=MPI.SUM)
out.append("scan %s" % list(s))
out.append("allreduce(obj) %s" % world.allreduce(rank, op=MPI.SUM))
out.append("bcast(obj) %s" % world.bcast({"step": 3} if rank == 0 else None, root=0))

# Split: evens and odds, then each half split again by rank / 2.
half = world.Split(rank % 2, rank)
hx = array("d", [0.0])
half.Allreduce(array("d", [float(rank)]), hx, op=MPI.SUM)
out.append("half %d allreduce %s" % (rank % 2, list(hx)))
hg = array("i", [0] * half.Get_size())
half.Gather(array("i", [rank]), hg if half.Get_rank() == 0 else None, root=0)
if half.Get_rank() == 0:
    out.append("half gather %s" % list(hg))
sc = array("i", [0])
half.Scatter(array("i", [100 + j for j in range(half.Get_size())]) if half.Get_rank() == 0 else None, sc, root=0)
out.append("half scatter %s" % list(sc))
quarter = half.Split(rank // 2, rank)
quarter.Barrier()
q = array("i", [0])
quarter.Allreduce(array("i", [rank]), q, op=MPI.MAX)
out.append("quarter max %s" % list(q))
for i in range(20):
    world.Allreduce(x, y, op=MPI.SUM)
quarter.Free()
half.Free()

# One line per rank, in rank order (rank 0 prints them all).
lines = world.gather("\n".join("mpi4py rank %d: %s" % (rank, o) for o in out), root=0)
if rank == 0:
    print("\n".join(lines), flush=True)
