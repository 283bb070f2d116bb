package dev.warden.testkit;

import java.util.concurrent.CountDownLatch;

/**
 * The child of {@link JvmProcessIT}: prints each argument as {@code arg <value>}, then either exits
 * with the code after {@code exit} or prints {@code ready} and waits until killed.
 */
public final class PrintingMain {
  private PrintingMain() {}

  /** Prints the arguments, then exits or waits forever. */
  public static void main(String[] args) throws InterruptedException {
    for (String arg : args) {
      System.out.println("arg " + arg);
    }
    if (args.length == 2 && args[0].equals("exit")) {
      System.err.println("exiting on request");
      System.exit(Integer.parseInt(args[1]));
    }
    System.out.println("ready pid=" + ProcessHandle.current().pid());
    new CountDownLatch(1).await();
  }
}
