// A Java workload that times itself: the main thread runs phases in an
// order drawn at random (seeded), Alpha twice as often as Beta, while a
// second thread spins in Spin.run; each phase's CPU time, taken with the
// thread's own clock (ThreadMXBean.getCurrentThreadCpuTime), is written to
// OUT as "name seconds" lines when the run ends or the JVM is stopped: the
// independent expectation a profile's shares are held to; "Calls N" says
// how many phases the main thread ran (its throughput, for bench/jvm.sh). Each phase is
// a run() method of its own class called through an interface at one call
// site that sees three classes (Phases.call), a megamorphic call that the
// JIT compilers do not inline: each phase keeps a compiled frame of its
// own. One run() is a few ms of compiled code.
//
//   java -cp DIR Phases OUT SECONDS
import java.io.FileWriter;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

public class Phases {
    interface Phase {
        String name();
        void run();
    }

    static volatile long sink;
    static volatile boolean stop;

    static final class Alpha implements Phase {
        public String name() { return "Alpha"; }
        public void run() { // integer arithmetic
            long acc = sink;
            for (int i = 0; i < 3_000_000; i++)
                acc = acc * 6364136223846793005L + (i ^ (acc >>> 29));
            sink = acc;
        }
    }

    static final class Beta implements Phase {
        public String name() { return "Beta"; }
        public void run() { // floating point
            double acc = sink;
            for (int i = 1; i < 500_000; i++)
                acc += Math.sqrt(i + acc * 1e-9) / i;
            sink = (long) acc;
        }
    }

    static final class Spin implements Phase {
        public String name() { return "Spin"; }
        public void run() { // the second thread's own loop
            long acc = 0;
            for (int i = 0; i < 1_000_000; i++)
                acc += (acc << 3) ^ i;
            sink = acc;
        }
    }

    // Every phase is run from here: the call site sees three classes
    static void call(Phase p) {
        p.run();
    }

    // the CPU seconds so far (written by the thread that runs the phase)
    static volatile double alpha, beta, spin;
    static volatile long calls; // the main thread's phases run: its throughput

    public static void main(String[] args) throws Exception {
        String out = args[0];
        long end = System.nanoTime() + (long) (Double.parseDouble(args[1]) * 1e9);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        // at the end of the run, or when the JVM is stopped (SIGTERM)
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try (FileWriter w = new FileWriter(out)) {
                w.write(String.format("Alpha %.6f%nBeta %.6f%nSpin %.6f%nCalls %d%n", alpha, beta, spin, calls));
            } catch (IOException e) {
                System.err.println(out + ": " + e.getMessage());
            }
        }));
        Thread spinner = new Thread(() -> {
            Phase s = new Spin();
            long t0 = mx.getCurrentThreadCpuTime();
            while (!stop) {
                call(s);
                spin = (mx.getCurrentThreadCpuTime() - t0) / 1e9;
            }
        }, "spinner");
        spinner.setDaemon(true);
        spinner.start();
        List<Phase> plan = new ArrayList<>(List.of(new Alpha(), new Alpha(), new Beta()));
        Random order = new Random(29);
        while (System.nanoTime() < end) {
            Collections.shuffle(plan, order);
            for (Phase p : plan) {
                long t0 = mx.getCurrentThreadCpuTime();
                call(p);
                double s = (mx.getCurrentThreadCpuTime() - t0) / 1e9;
                if (p instanceof Alpha) alpha += s; else beta += s;
                calls++;
            }
        }
        stop = true;
        spinner.join();
    }
}
