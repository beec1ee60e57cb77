// DynamoDB Local's command line has no host option: its Jetty server binds every
// interface, which would expose the local table (key hashes, the local link-signing
// key) to the network. This launcher builds the server exactly as the jar's own main
// does, then binds its connectors to 127.0.0.1 before starting it. dev/local/dynamodb.ts
// compiles it once into node_modules/.cache (no build step, nothing binary in git).
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public class LoopbackDynamoDBLocal {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    for (Connector connector : server.getConnectors()) ((ServerConnector) connector).setHost("127.0.0.1");
    proxy.start();
    proxy.join();
  }
}
