! The MPI tap's Fortran test program with `use mpi` (tests/tap/tap_test.sh);
! tap_mpif.f90 (mpif.h) and tap_f08.f90 (`use mpi_f08`) make the same calls, and tap_check.cpp
! restates them (programFortran). Rank r's element i is r * 1000 + i.
program tap_use_mpi
  use mpi
  implicit none
  integer :: ierr, rank, nranks, i, half, req
  integer :: a(8), b(8)
  double precision :: d(4), e(4)
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  do i = 1, 4
    a(i) = -1
    if (rank == 0) a(i) = i - 1
  end do
  call MPI_BCAST(a, 4, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  print '(A,I0,A,4(1X,I0))', 'r', rank, ' bcast', a(1:4)
  do i = 1, 4
    d(i) = rank * 1000 + i - 1
  end do
  call MPI_ALLREDUCE(d, e, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  print '(A,I0,A,4(1X,F0.1))', 'r', rank, ' allreduce', e
  do i = 1, 4
    a(i) = rank * 1000 + i - 1
  end do
  call MPI_ALLREDUCE(MPI_IN_PLACE, a, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  print '(A,I0,A,4(1X,I0))', 'r', rank, ' allreduce_in_place', a(1:4)
  do i = 1, 4
    a(i) = rank * 1000 + i - 1
  end do
  call MPI_GATHER(a, 2, MPI_INTEGER, b, 2, MPI_INTEGER, 1, MPI_COMM_WORLD, ierr)
  if (rank == 1) print '(A,I0,A,8(1X,I0))', 'r', rank, ' gather', b(1:8)
  call MPI_IALLREDUCE(a, b, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req, ierr)
  call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
  print '(A,I0,A,4(1X,I0))', 'r', rank, ' iallreduce', b(1:4)
  call MPI_COMM_SPLIT(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
  call MPI_ALLREDUCE(a, b, 4, MPI_INTEGER, MPI_SUM, half, ierr)
  print '(A,I0,A,4(1X,I0))', 'r', rank, ' split_allreduce', b(1:4)
  call MPI_COMM_FREE(half, ierr)
  call MPI_FINALIZE(ierr)
end program tap_use_mpi
